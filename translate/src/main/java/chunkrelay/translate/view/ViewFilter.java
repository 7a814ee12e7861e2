package chunkrelay.translate.view;

import chunkrelay.chunk.spans.ThreadIds;

import java.util.Locale;

/**
 * Which samples of the archived chunks a view shows; a null criterion lets everything through.
 *
 * @param fromNanos  samples at or after this Unix time
 * @param toNanos    samples before this Unix time
 * @param profilerId 32 hex digits, any case
 * @param threadId   the thread as the SDK named it (decimal ids compare as numbers)
 * @param traceId    samples linked to a span of this trace (32 hex digits)
 * @param spanId     samples linked to this span (16 hex digits)
 */
public record ViewFilter(long fromNanos, long toNanos, String profilerId, String threadId, String traceId,
                         String spanId) {

    public ViewFilter {
        profilerId = lower(profilerId);
        threadId = ThreadIds.canonical(threadId);
        traceId = lower(traceId);
        spanId = lower(spanId);
    }

    public static ViewFilter all() {
        return new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, null, null, null, null);
    }

    /** Whether the filter asks for linked samples only. */
    public boolean byLink() {
        return traceId != null || spanId != null;
    }

    private static String lower(String text) {
        return text == null || text.isBlank() ? null : text.toLowerCase(Locale.ROOT).replace("-", "");
    }
}
