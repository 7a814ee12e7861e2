package chunkrelay.envelope.views;

import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.FunctionTableCsv;
import chunkrelay.translate.view.Regressions;
import io.micronaut.http.HttpHeaders;
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
import java.nio.charset.StandardCharsets;
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
        String format = parameters.get("format");
        boolean csv = "csv".equalsIgnoreCase(format);
        if (!csv && format != null && !format.isBlank() && !format.equalsIgnoreCase("json")) {
            throw ViewQuery.bad("format must be json or csv, got '" + format + "'");
        }
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
        // named as the profile export of the range is: functions-1-20261122T020000Z-20261122T030000Z.csv
        String profileName = ProfileViews.fileName(query, ExportFormat.PPROF);
        String name = "functions" + profileName.substring("profile".length(),
                profileName.length() - ExportFormat.PPROF.suffix().length()) + "csv";
        return HttpResponse.ok(body.toString().getBytes(StandardCharsets.UTF_8))
                .contentType("text/csv; charset=utf-8")
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"" + name + "\"");
    }

    @Get(uri = "/{project}/regressions", produces = MediaType.APPLICATION_JSON)
    public Regressions.Result regressions(@PathVariable String project, HttpRequest<?> request) {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.of(project, parameters, ViewQuery.now(clock));
        return questions.regressions(DiffSide.parse("baseline", parameters.get("baseline"), query),
                DiffSide.parse("comparison", parameters.get("comparison"), query));
    }
}
