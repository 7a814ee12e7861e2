package chunkrelay.translate.view;

import chunkrelay.chunk.spans.ThreadIds;

import java.util.Locale;

/**
 * Which samples of the archived chunks a view shows; a null criterion lets everything through.
 *
 * @param fromNanos   samples at or after this Unix time
 * @param toNanos     samples before this Unix time
 * @param profilerId  32 hex digits, any case
 * @param threadId    the thread as the SDK named it (decimal ids compare as numbers)
 * @param traceId     samples linked to a span of this trace (32 hex digits)
 * @param spanId      samples linked to this span (16 hex digits)
 * @param platform    chunks of this platform
 * @param release     chunks of this release
 * @param environment chunks of this environment
 */
public record ViewFilter(long fromNanos, long toNanos, String profilerId, String threadId, String traceId,
                         String spanId, String platform, String release, String environment) {

    public ViewFilter {
        profilerId = lower(profilerId);
        threadId = ThreadIds.canonical(threadId);
        traceId = lower(traceId);
        spanId = lower(spanId);
        platform = blankToNull(platform);
        release = blankToNull(release);
        environment = blankToNull(environment);
    }

    /** A filter on time, profiler, thread and link, letting every platform, release and environment through. */
    public ViewFilter(long fromNanos, long toNanos, String profilerId, String threadId, String traceId,
                      String spanId) {
        this(fromNanos, toNanos, profilerId, threadId, traceId, spanId, null, null, null);
    }

    public static ViewFilter all() {
        return new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, null, null, null, null);
    }

    /** Everything of {@code [fromNanos, toNanos)}: what a rollup of that bucket holds. */
    public static ViewFilter between(long fromNanos, long toNanos) {
        return new ViewFilter(fromNanos, toNanos, null, null, null, null);
    }

    /** The same filter over another time range. */
    public ViewFilter within(long from, long to) {
        return new ViewFilter(from, to, profilerId, threadId, traceId, spanId, platform, release, environment);
    }

    /** Whether the filter keeps every sample of its range: no profiler, thread, link or chunk attribute asked for. */
    public boolean keepsWholeRange() {
        return profilerId == null && threadId == null && !byLink() && platform == null && release == null
                && environment == null;
    }

    /** Whether the filter asks for linked samples only. */
    public boolean byLink() {
        return traceId != null || spanId != null;
    }

    private static String lower(String text) {
        return text == null || text.isBlank() ? null : text.toLowerCase(Locale.ROOT).replace("-", "");
    }

    private static String blankToNull(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
