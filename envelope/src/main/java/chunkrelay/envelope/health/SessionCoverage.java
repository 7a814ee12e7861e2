package chunkrelay.envelope.health;

import java.util.Arrays;

/**
 * The times a profiler session's chunks span, as a sorted array of disjoint closed intervals {@code [first, last]}
 * (nanoseconds since the epoch, two longs each): a chunk spans from its first sample to its last. A session keeps at
 * most {@link #MAX_INTERVALS}; past them the two intervals with the shortest gap between them are joined, so a
 * session with more gaps than that is taken as covering its shortest gaps (a transaction in one is not counted as
 * uncovered). Static functions over the arrays {@link HourCounts} holds.
 */
final class SessionCoverage {
    /** Intervals a session keeps per hour of receipt: a session that sends every 10 s and never pauses keeps one. */
    static final int MAX_INTERVALS = 64;
    /** A session whose chunks span nothing known. */
    static final long[] NONE = new long[0];

    private SessionCoverage() {
    }

    /** {@code intervals} with {@code [first, last]} added, joined with those it touches. */
    static long[] add(long[] intervals, long first, long last) {
        long[] joined = new long[intervals.length + 2];
        int n = 0;
        boolean placed = false;
        for (int i = 0; i < intervals.length; i += 2) {
            long start = intervals[i];
            long end = intervals[i + 1];
            if (end < first || start > last) {
                if (!placed && start > last) {
                    joined[n++] = first;
                    joined[n++] = last;
                    placed = true;
                }
                joined[n++] = start;
                joined[n++] = end;
            } else {
                first = Math.min(first, start);
                last = Math.max(last, end);
            }
        }
        if (!placed) {
            joined[n++] = first;
            joined[n++] = last;
        }
        long[] result = Arrays.copyOf(joined, n);
        return result.length > 2 * MAX_INTERVALS ? joinShortestGap(result) : result;
    }

    /** Every interval of {@code other} added to {@code intervals}. */
    static long[] merge(long[] intervals, long[] other) {
        long[] merged = intervals;
        for (int i = 0; i < other.length; i += 2) {
            merged = add(merged, other[i], other[i + 1]);
        }
        return merged;
    }

    /** Whether an interval shares a moment with {@code [start, end]}. */
    static boolean covers(long[] intervals, long start, long end) {
        for (int i = 0; i < intervals.length; i += 2) {
            if (intervals[i] <= end && intervals[i + 1] >= start) {
                return true;
            }
        }
        return false;
    }

    private static long[] joinShortestGap(long[] intervals) {
        int shortest = 2;
        for (int i = 4; i < intervals.length; i += 2) {
            if (intervals[i] - intervals[i - 1] < intervals[shortest] - intervals[shortest - 1]) {
                shortest = i;
            }
        }
        long[] joined = new long[intervals.length - 2];
        System.arraycopy(intervals, 0, joined, 0, shortest - 1);
        System.arraycopy(intervals, shortest + 1, joined, shortest - 1, intervals.length - shortest - 1);
        return joined;
    }
}
