package chunkrelay.translate;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.chunk.spans.ThreadIds;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The spans of one profiler known when a chunk is translated, and the rule that links a sample to one of them: the
 * innermost span that covers the sample's time ({@code start <= t < end}) on the sample's thread. A span without a
 * thread stands for the only thread of a chunk that has exactly one (Node, browser). Where the spans covering a time
 * do not nest (two requests interleaved on one event loop) no span is innermost, and the sample stays unlinked as
 * ambiguous.
 *
 * <p>Per thread the covered time is cut into elementary intervals at every span start and end, each answered once
 * by a sweep, so a sample costs one binary search whatever the number of spans. Immutable and thread-safe.
 */
public final class SpanTimeline {
    public static final SpanTimeline NONE = new SpanTimeline(List.of());
    /** A sample covered by no span of its thread. */
    public static final int UNLINKED = -1;
    /** A sample covered by spans of its thread that do not nest. */
    public static final int AMBIGUOUS = -2;

    private final List<SpanRecord> spans;
    private final Map<String, List<Integer>> spansOfThread = new HashMap<>();
    private final List<Integer> threadless = new ArrayList<>();

    private SpanTimeline(List<SpanRecord> spans) {
        this.spans = spans;
        for (int i = 0; i < spans.size(); i++) {
            String thread = spans.get(i).threadId();
            if (thread == null) {
                threadless.add(i);
            } else {
                spansOfThread.computeIfAbsent(ThreadIds.canonical(thread), t -> new ArrayList<>()).add(i);
            }
        }
    }

    /** The spans to link against; a span id given twice (a retried envelope) counts once. */
    public static SpanTimeline of(Collection<SpanRecord> spans) {
        Map<String, SpanRecord> bySpanId = new LinkedHashMap<>();
        for (SpanRecord span : spans) {
            bySpanId.putIfAbsent(span.traceId() + span.spanId(), span);
        }
        return bySpanId.isEmpty() ? NONE : new SpanTimeline(List.copyOf(bySpanId.values()));
    }

    public boolean isEmpty() {
        return spans.isEmpty();
    }

    public int size() {
        return spans.size();
    }

    public SpanRecord span(int index) {
        return spans.get(index);
    }

    /**
     * The answers for one thread of a chunk.
     *
     * @param threadId          the chunk's thread id as sent
     * @param chunkHasOneThread whether it is the chunk's only thread, which spans without a thread then stand for
     */
    public ThreadLinks forThread(String threadId, boolean chunkHasOneThread) {
        List<Integer> candidates = new ArrayList<>(spansOfThread.getOrDefault(ThreadIds.canonical(threadId), List.of()));
        if (chunkHasOneThread) {
            candidates.addAll(threadless);
        }
        return new ThreadLinks(candidates);
    }

    /** Elementary intervals of one thread: {@code bounds[i] <= t < bounds[i + 1]} is answered by {@code answer[i]}. */
    public final class ThreadLinks {
        private final long[] bounds;
        private final int[] answer;

        private ThreadLinks(List<Integer> candidates) {
            long[] points = new long[candidates.size() * 2];
            int p = 0;
            for (int index : candidates) {
                points[p++] = spans.get(index).startNanos();
                points[p++] = spans.get(index).endNanos();
            }
            Arrays.sort(points);
            int distinct = 0;
            for (int i = 0; i < points.length; i++) {
                if (i == 0 || points[i] != points[i - 1]) {
                    points[distinct++] = points[i];
                }
            }
            bounds = Arrays.copyOf(points, distinct);
            answer = new int[Math.max(0, distinct - 1)];
            sweep(candidates);
        }

        private void sweep(List<Integer> candidates) {
            List<Integer> byStart = new ArrayList<>(candidates);
            byStart.sort(Comparator.comparingLong(i -> spans.get(i).startNanos()));
            List<Integer> active = new ArrayList<>();
            int next = 0;
            for (int segment = 0; segment < answer.length; segment++) {
                long from = bounds[segment];
                while (next < byStart.size() && spans.get(byStart.get(next)).startNanos() <= from) {
                    active.add(byStart.get(next++));
                }
                active.removeIf(i -> spans.get(i).endNanos() <= from);
                answer[segment] = innermost(active);
            }
        }

        /**
         * The latest-starting active span (ties: the earliest end, then the smaller span id), provided every other
         * active span ends no earlier, that is, contains it.
         */
        private int innermost(List<Integer> active) {
            if (active.isEmpty()) {
                return UNLINKED;
            }
            int best = active.get(0);
            long earliestEnd = Long.MAX_VALUE;
            for (int i : active) {
                SpanRecord span = spans.get(i);
                SpanRecord current = spans.get(best);
                earliestEnd = Math.min(earliestEnd, span.endNanos());
                if (span.startNanos() > current.startNanos()
                        || (span.startNanos() == current.startNanos() && (span.endNanos() < current.endNanos()
                        || (span.endNanos() == current.endNanos() && span.spanId().compareTo(current.spanId()) < 0)))) {
                    best = i;
                }
            }
            return spans.get(best).endNanos() == earliestEnd ? best : AMBIGUOUS;
        }

        /** The index of the span that links a sample at {@code timestampNanos}, {@link #UNLINKED} or {@link #AMBIGUOUS}. */
        public int spanAt(long timestampNanos) {
            int i = Arrays.binarySearch(bounds, timestampNanos);
            int segment = i >= 0 ? i : -i - 2;
            return segment < 0 || segment >= answer.length ? UNLINKED : answer[segment];
        }
    }
}
