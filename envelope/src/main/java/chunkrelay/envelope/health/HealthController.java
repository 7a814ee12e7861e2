package chunkrelay.envelope.health;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.views.ViewQuery;
import chunkrelay.storage.TimeBuckets;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpParameters;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * {@code GET /api/v1/projects/{project}/health}: each SDK's ingest health over the views' range ({@code from},
 * {@code to}), as JSON or {@code format=csv} ({@link HealthCsv}). Under the views' access rules (its path is theirs,
 * {@link chunkrelay.envelope.views.ViewAccessFilter}); a bad parameter is their 400. Runs on the blocking executor.
 */
@Controller("/api/v1/projects")
@ExecuteOn(TaskExecutors.BLOCKING)
public class HealthController {
    private static final DateTimeFormatter FILE_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private final HealthQuestions questions;
    private final Clock clock;

    public HealthController(HealthQuestions questions, Clock clock) {
        this.questions = questions;
        this.clock = clock;
    }

    @Get(uri = "/{project}/health")
    public HttpResponse<?> health(@PathVariable String project, HttpRequest<?> request) throws IOException {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.parse(project, parameters.get("from"), parameters.get("to"), null, null, null,
                null, null, null, TimeBuckets.secondOf(clock.instant()));
        String format = parameters.get("format");
        boolean csv = "csv".equalsIgnoreCase(format);
        if (!csv && format != null && !format.isBlank() && !format.equalsIgnoreCase("json")) {
            throw new RelayError(HttpStatus.BAD_REQUEST, "format must be json or csv, got '" + format + "'");
        }
        HealthQuestions.Answer answer = questions.answer(query.project(), query.from(), query.to());
        if (!csv) {
            return HttpResponse.ok(answer).contentType(MediaType.APPLICATION_JSON_TYPE);
        }
        StringWriter body = new StringWriter();
        HealthCsv.write(answer.sdks(), body);
        String name = "health-" + query.project() + "-" + FILE_TIME.format(query.from()) + "-"
                + FILE_TIME.format(query.to()) + ".csv";
        return HttpResponse.ok(body.toString().getBytes(StandardCharsets.UTF_8))
                .contentType("text/csv; charset=utf-8")
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"" + name + "\"");
    }
}
