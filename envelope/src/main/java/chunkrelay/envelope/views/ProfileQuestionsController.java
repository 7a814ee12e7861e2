package chunkrelay.envelope.views;

import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileDiff;
import chunkrelay.translate.view.Timeline;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.http.HttpParameters;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Clock;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * The query API's questions beyond one flame graph, all under {@code /api/v1/projects/{project}} and with the
 * filters of {@code profile} (from, to, profiler_id, platform, release, environment, thread_id, trace_id, span_id):
 * {@code newest} (the range of the newest chunks), {@code traces} (profile → trace),
 * {@code traces/{trace_id}/profile} (trace → profile), {@code diff} and {@code timeline}. Access as for every view
 * ({@link ViewAccessFilter}); the work runs on the blocking executor.
 */
@Controller("/api/v1/projects")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ProfileQuestionsController {
    private final ProfileViews views;
    private final ProfileQuestions questions;

    private final Clock clock;

    public ProfileQuestionsController(ProfileViews views, ProfileQuestions questions, Clock clock) {
        this.views = views;
        this.questions = questions;
        this.clock = clock;
    }

    /** The range of a project's newest chunks, null times when it has none. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record NewestRange(long project, String from, String to) {
    }

    /** A timeline and the range it covers. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record TimelineAnswer(long project, String from, String to, String by, long stepNanos, int steps,
                                 long fromNanos, List<Timeline.Series> series) {
    }

    @Get(uri = "/{project}/newest", produces = MediaType.APPLICATION_JSON)
    public NewestRange newest(@PathVariable String project) {
        long id = ViewQuery.parse(project, null, null, null, null, null, null, null, null, ViewQuery.now(clock)).project();
        return views.newestRange(id).map(r -> new NewestRange(id, r.from().toString(), r.to().toString()))
                .orElse(new NewestRange(id, null, null));
    }

    @Get(uri = "/{project}/traces", produces = MediaType.APPLICATION_JSON)
    public ProfileQuestions.TraceList traces(@PathVariable String project, HttpRequest<?> request) {
        return questions.traces(ViewQuery.of(project, request.getParameters(), ViewQuery.now(clock)));
    }

    @Get(uri = "/{project}/traces/{traceId}/profile")
    public HttpResponse<byte[]> traceProfile(@PathVariable String project, @PathVariable String traceId,
                                             HttpRequest<?> request) throws IOException {
        ExportFormat format = ProfileViewsController.format(request.getParameters().get("format"));
        ViewQuery query = ViewQuery.of(project, request.getParameters(), ViewQuery.now(clock)).withTrace(traceId);
        MergedProfile profile = questions.traceProfile(query);
        String name = "trace-" + query.traceId() + "." + format.suffix();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        ProfileViews.write(profile, name, format, body);
        return ProfileViewsController.download(body.toByteArray(), format, name);
    }

    @Get(uri = "/{project}/diff", produces = MediaType.APPLICATION_JSON)
    public ProfileDiff.Result diff(@PathVariable String project, HttpRequest<?> request) {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.of(project, parameters, ViewQuery.now(clock));
        return questions.diff(DiffSide.parse("baseline", parameters.get("baseline"), query),
                DiffSide.parse("comparison", parameters.get("comparison"), query));
    }

    @Get(uri = "/{project}/timeline", produces = MediaType.APPLICATION_JSON)
    public TimelineAnswer timeline(@PathVariable String project, HttpRequest<?> request) {
        HttpParameters parameters = request.getParameters();
        ViewQuery query = ViewQuery.of(project, parameters, ViewQuery.now(clock));
        Timeline.By by = by(parameters.get("by"));
        Timeline.Result timeline = questions.timeline(query, step(parameters.get("step")), by);
        return new TimelineAnswer(query.project(), query.from().toString(), query.to().toString(),
                by.name().toLowerCase(Locale.ROOT), timeline.stepNanos(), timeline.steps(), timeline.fromNanos(),
                timeline.series());
    }

    /** {@code 30s}, {@code 5m}, {@code 1h}, seconds as a number, or an ISO 8601 duration; null when absent. */
    static Duration step(String step) {
        if (step == null || step.isBlank()) {
            return null;
        }
        String text = step.trim().toLowerCase(Locale.ROOT);
        try {
            if (text.matches("[0-9]+(\\.[0-9]+)?")) {
                return Duration.ofNanos(new java.math.BigDecimal(text).movePointRight(9).longValueExact());
            }
            if (text.matches("[0-9]+(ms|s|m|h)")) {
                long amount = Long.parseLong(text.replaceAll("[a-z]+$", ""));
                return switch (text.replaceAll("^[0-9]+", "")) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    default -> Duration.ofHours(amount);
                };
            }
            return Duration.parse(step.trim());
        } catch (DateTimeParseException | ArithmeticException e) {
            throw ViewQuery.bad("step must be like 10s, 5m, 1h, a number of seconds or PT10S, got '" + step + "'");
        }
    }

    private static Timeline.By by(String by) {
        if (by == null || by.isBlank() || by.equalsIgnoreCase("thread")) {
            return Timeline.By.THREAD;
        }
        if (by.equalsIgnoreCase("profiler")) {
            return Timeline.By.PROFILER;
        }
        throw ViewQuery.bad("by must be thread or profiler, got '" + by + "'");
    }
}
