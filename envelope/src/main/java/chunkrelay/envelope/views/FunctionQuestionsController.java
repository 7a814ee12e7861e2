package chunkrelay.envelope.views;

import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.FunctionTableCsv;
import chunkrelay.translate.view.Regressions;
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
 * {@code GET /api/v1/projects/{project}/functions} (the top-functions table, JSON or {@code format=csv}) and
 * {@code GET /api/v1/projects/{project}/regressions} (functions whose share changed between {@code baseline} and
 * {@code comparison}), with the filters of every view. Access as for every view ({@link ViewAccessFilter}); the work
 * runs on the blocking executor.
 */
@Controller("/api/v1/projects")
@ExecuteOn(TaskExecutors.BLOCKING)
public class FunctionQuestionsController {
    private final FunctionQuestions questions;
    private final Clock clock;

    public FunctionQuestionsController(FunctionQuestions questions, Clock clock) {
        this.questions = questions;
        this.clock = clock;
    }

    @Get(uri = "/{project}/functions")
    public HttpResponse<?> functions(@PathVariable String project, HttpRequest<?> request) throws IOException {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.of(project, parameters, ViewQuery.now(clock));
        boolean csv = CsvDownloads.asked(parameters.get("format"));
        FunctionTable.Order order = FunctionQuestions.order(parameters.get("sort"));
        String search = ViewQuery.blankToNull(parameters.get("q"));
        int offset = FunctionQuestions.count("offset", parameters.get("offset"), 0);
        // a CSV is every row unless a page is asked for
        int limit = FunctionQuestions.count("limit", parameters.get("limit"),
                csv ? Integer.MAX_VALUE : FunctionQuestions.DEFAULT_LIMIT);
        FunctionTable.Page page = questions.table(query).page(order, search, offset, limit);
        if (!csv) {
            return HttpResponse.ok(FunctionQuestions.TableAnswer.of(query, order, search, page))
                    .contentType(MediaType.APPLICATION_JSON_TYPE);
        }
        StringWriter body = new StringWriter();
        FunctionTableCsv.write(page.rows(), body);
        return CsvDownloads.of("functions", query, body.toString());
    }

    @Get(uri = "/{project}/regressions", produces = MediaType.APPLICATION_JSON)
    public Regressions.Result regressions(@PathVariable String project, HttpRequest<?> request) {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.of(project, parameters, ViewQuery.now(clock));
        return questions.regressions(DiffSide.parse("baseline", parameters.get("baseline"), query),
                DiffSide.parse("comparison", parameters.get("comparison"), query));
    }
}
