package chunkrelay.envelope.health;

import chunkrelay.envelope.views.CsvDownloads;
import chunkrelay.envelope.views.ViewQuery;
import io.micronaut.http.HttpParameters;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

import java.io.IOException;
import java.io.StringWriter;
import java.time.Clock;

/**
 * {@code GET /api/v1/projects/{project}/health}: each SDK's ingest health over the views' range ({@code from},
 * {@code to}), as JSON or {@code format=csv} ({@link HealthCsv}). Under the views' access rules (its path is theirs,
 * {@link chunkrelay.envelope.views.ViewAccessFilter}); a bad parameter is their 400. Runs on the blocking executor.
 */
@Controller("/api/v1/projects")
@ExecuteOn(TaskExecutors.BLOCKING)
public class HealthController {
    private final HealthQuestions questions;
    private final Clock clock;

    public HealthController(HealthQuestions questions, Clock clock) {
        this.questions = questions;
        this.clock = clock;
    }

    @Get(uri = "/{project}/health")
    public HttpResponse<?> health(@PathVariable String project, HttpRequest<?> request) throws IOException {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.range(project, parameters, clock);
        boolean csv = CsvDownloads.asked(parameters.get("format"));
        HealthQuestions.Answer answer = questions.answer(query.project(), query.from(), query.to());
        if (!csv) {
            return HttpResponse.ok(answer).contentType(MediaType.APPLICATION_JSON_TYPE);
        }
        StringWriter body = new StringWriter();
        HealthCsv.write(answer.sdks(), body);
        return CsvDownloads.of("health", query, body.toString());
    }
}
