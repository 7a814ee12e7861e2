package chunkrelay.envelope.views;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.util.List;

/**
 * The query API over the archive: {@code GET /api/v1/projects}, {@code GET /api/v1/projects/{project}/chunks} and
 * {@code GET /api/v1/projects/{project}/profile} (the other questions are {@link ProfileQuestionsController}'s). Access is checked by {@link ViewAccessFilter}; the work (bucket
 * listings and reads) runs on the blocking executor, never on the event loop.
 */
@Controller("/api/v1/projects")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ProfileViewsController {
    private final ProfileViews views;

    private final Clock clock;

    public ProfileViewsController(ProfileViews views, Clock clock) {
        this.views = views;
        this.clock = clock;
    }

    /** The project ids in the archive; empty lists are written too (the relay's JSON leaves them out otherwise). */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ProjectList(List<String> projects) {
    }

    /**
     * A chunk listing, the range it covers and its chunks; {@code truncated} when the range holds more than
     * {@code relay.views.max-chunks} and the listing stopped there.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ChunkList(long project, String from, String to, List<ProfileViews.ChunkSummary> chunks,
                            boolean truncated) {
    }

    @Get(produces = MediaType.APPLICATION_JSON)
    public ProjectList projects() {
        return new ProjectList(views.projects());
    }

    @Get(uri = "/{project}/chunks", produces = MediaType.APPLICATION_JSON)
    public ChunkList chunks(@PathVariable String project, @Nullable @QueryValue String from,
                                      @Nullable @QueryValue String to,
                                      @Nullable @QueryValue("profiler_id") String profilerId,
                                      @Nullable @QueryValue String platform, @Nullable @QueryValue String release,
                                      @Nullable @QueryValue String environment) {
        ViewQuery query = ViewQuery.parse(project, from, to, profilerId, platform, release, null, null, null,
                ViewQuery.now(clock)).withEnvironment(environment);
        ProfileViews.ChunkListing listing = views.chunks(query);
        return new ChunkList(query.project(), query.from().toString(), query.to().toString(), listing.chunks(),
                listing.truncated());
    }

    @Get(uri = "/{project}/profile")
    public HttpResponse<byte[]> profile(@PathVariable String project, HttpRequest<?> request) throws IOException {
        ExportFormat exportFormat = format(request.getParameters().get("format"));
        ViewQuery query = ViewQuery.of(project, request.getParameters(), ViewQuery.now(clock));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        views.export(query, exportFormat, body);
        return download(body.toByteArray(), exportFormat, ProfileViews.fileName(query, exportFormat));
    }

    /** An export as a download, named. */
    static HttpResponse<byte[]> download(byte[] body, ExportFormat format, String fileName) {
        return HttpResponse.ok(body).contentType(format.mediaType())
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"" + fileName + "\"");
    }

    /** The {@code format} parameter; pprof when absent. */
    static ExportFormat format(String format) {
        try {
            return ExportFormat.of(format == null ? "pprof" : format);
        } catch (IllegalArgumentException e) {
            throw ViewQuery.bad(e.getMessage());
        }
    }
}
