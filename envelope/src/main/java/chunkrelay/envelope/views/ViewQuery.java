package chunkrelay.envelope.views;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.ViewFilter;
import io.micronaut.http.HttpParameters;
import io.micronaut.http.HttpStatus;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * What a view asks for: a project, a time range and filters, as the query string or the command line gives them.
 *
 * @param project     the project id
 * @param from        the range's start (inclusive)
 * @param to          the range's end (exclusive)
 * @param profilerId  only chunks of this profiler (32 hex digits), or null
 * @param platform    only chunks of this platform, or null
 * @param release     only chunks of this release, or null
 * @param threadId    only samples of this thread, or null
 * @param traceId     only samples linked to this trace, or null
 * @param spanId      only samples linked to this span, or null
 * @param environment only chunks of this environment, or null
 */
public record ViewQuery(long project, Instant from, Instant to, String profilerId, String platform, String release,
                        String threadId, String traceId, String spanId, String environment) {
    /** The range when none is given: the last hour, from the start of its first minute. */
    static final Duration DEFAULT_RANGE = Duration.ofHours(1);

    /**
     * The start of the default range ending at {@code end}: the start of the minute an hour before it, so that the
     * range's start lies on a rollup's bound and no chunk is read whole there, whatever the fleet's rate.
     */
    static Instant defaultStart(Instant end) {
        return TimeBuckets.minuteOf(end.minus(DEFAULT_RANGE));
    }

    /**
     * Reads a query from its text parameters; {@code from} and {@code to} are RFC 3339 times or Unix seconds, and
     * default to the hour before {@code now} (from the start of its first minute).
     *
     * @throws RelayError 400 for a malformed parameter
     */
    public static ViewQuery parse(String project, String from, String to, String profilerId, String platform,
                                  String release, String threadId, String traceId, String spanId, Instant now) {
        long projectId = ProjectIds.parse(project)
                .orElseThrow(() -> bad("project must be a number, got '" + project + "'"));
        Instant end = to == null || to.isBlank() ? now : time("to", to);
        Instant start = from == null || from.isBlank() ? defaultStart(end) : time("from", from);
        if (!start.isBefore(end)) {
            throw bad("from (" + start + ") must be before to (" + end + ")");
        }
        return new ViewQuery(projectId, start, end, hex("profiler_id", profilerId, 32), blankToNull(platform),
                blankToNull(release), blankToNull(threadId), hex("trace_id", traceId, 32), hex("span_id", spanId, 16),
                null);
    }

    /** The same query for chunks of one environment only (null: any). */
    public ViewQuery withEnvironment(String name) {
        return new ViewQuery(project, from, to, profilerId, platform, release, threadId, traceId, spanId,
                blankToNull(name));
    }

    /** The same query for chunks of one release only (null: any). */
    public ViewQuery withRelease(String name) {
        return new ViewQuery(project, from, to, profilerId, platform, blankToNull(name), threadId, traceId, spanId,
                environment);
    }

    /** The same query over another range. */
    public ViewQuery withRange(Instant start, Instant end) {
        if (!start.isBefore(end)) {
            throw bad("from (" + start + ") must be before to (" + end + ")");
        }
        return new ViewQuery(project, start, end, profilerId, platform, release, threadId, traceId, spanId,
                environment);
    }

    /**
     * The same query for the samples linked to one trace.
     *
     * @throws RelayError 400 when the trace id is not 32 hex digits
     */
    public ViewQuery withTrace(String id) {
        return new ViewQuery(project, from, to, profilerId, platform, release, threadId, hex("trace_id", id, 32),
                spanId, environment);
    }

    public ViewFilter filter() {
        return new ViewFilter(TimeBuckets.nanos(from), TimeBuckets.nanos(to), profilerId, threadId, traceId, spanId, platform, release,
                environment);
    }

    /**
     * The query a view's request parameters give: from, to, profiler_id, platform, release, environment, thread_id,
     * trace_id and span_id.
     */
    static ViewQuery of(String project, HttpParameters parameters, Instant now) {
        return parse(project, parameters.get("from"), parameters.get("to"), parameters.get("profiler_id"),
                parameters.get("platform"), parameters.get("release"), parameters.get("thread_id"),
                parameters.get("trace_id"), parameters.get("span_id"), now)
                .withEnvironment(parameters.get("environment"));
    }

    /**
     * A query of a range alone, from its {@code from} and {@code to} parameters, for a question that takes no
     * filters (the SDKs' ingest health); its other parameters are not read.
     */
    public static ViewQuery range(String project, HttpParameters parameters, java.time.Clock clock) {
        return parse(project, parameters.get("from"), parameters.get("to"), null, null, null, null, null, null,
                now(clock));
    }

    /** Now on the relay's clock, in whole seconds: the end of a range given without one. */
    static Instant now(java.time.Clock clock) {
        return TimeBuckets.secondOf(clock.instant());
    }

    static Instant time(String name, String value) {
        try {
            if (value.matches("[0-9]+(\\.[0-9]+)?")) {
                return Instant.ofEpochSecond(0, new java.math.BigDecimal(value).movePointRight(9).longValueExact());
            }
            return java.time.OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw bad(name + " must be an RFC 3339 time (2026-11-22T02:00:00Z) or Unix seconds, got '" + value + "'");
        }
    }

    private static String hex(String name, String value, int digits) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String normalised = value.replace("-", "").toLowerCase(Locale.ROOT);
        if (!normalised.matches("[0-9a-f]{" + digits + "}")) {
            throw bad(name + " must be " + digits + " hex digits, got '" + value + "'");
        }
        return normalised;
    }

    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    static RelayError bad(String detail) {
        return new RelayError(HttpStatus.BAD_REQUEST, detail);
    }
}
