package chunkrelay.chunk.spans;

/**
 * One span (or the root span of a transaction) as an SDK reported it, reduced to what links profile samples to it.
 *
 * @param traceId      32 lowercase hex digits
 * @param spanId       16 lowercase hex digits
 * @param parentSpanId 16 lowercase hex digits, or null for a root
 * @param segmentId    the span id of its segment (transaction root or v2 segment span), or null when unknown
 * @param segment      whether it is itself a segment (a transaction's root span or a v2 span with is_segment)
 * @param profilerId   the continuous profiler's id, 32 lowercase hex digits, or null when the SDK left it to the
 *                     segment (JavaScript's v2 children)
 * @param threadId     the thread it started on, canonical ({@link ThreadIds#canonical}), or null when not sent
 * @param startNanos   start, Unix nanoseconds
 * @param endNanos     end, Unix nanoseconds, not before the start
 */
public record SpanRecord(String traceId, String spanId, String parentSpanId, String segmentId, boolean segment,
                         String profilerId, String threadId, long startNanos, long endNanos) {

    /** The same span with the profiler id and thread it inherits from its segment where it has none. */
    public SpanRecord inheritFrom(SpanRecord parent) {
        return new SpanRecord(traceId, spanId, parentSpanId, segmentId, segment,
                profilerId != null ? profilerId : parent.profilerId(),
                threadId != null ? threadId : parent.threadId(), startNanos, endNanos);
    }

    public boolean covers(long timestampNanos) {
        return startNanos <= timestampNanos && timestampNanos < endNanos;
    }
}
