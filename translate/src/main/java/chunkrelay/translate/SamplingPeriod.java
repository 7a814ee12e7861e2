package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.SampledTime;

import java.util.Arrays;

/** The sampling interval a chunk shows, for {@code Profile.period}. */
final class SamplingPeriod {
    /** Sentry SDKs sample at 101 Hz. */
    static final long DEFAULT_NANOS = 1_000_000_000L / 101;

    private SamplingPeriod() {
    }

    /**
     * The period one tick stands for. A wall-clock profiler samples every thread on a timer, so the gaps between a
     * thread's samples show its interval ({@link #medianThreadDelta}). A CPU-time profiler samples a thread only while
     * it runs, so its gaps also hold the time it waited: its tick is the configured period, 101 Hz of CPU time for
     * the Android SDK's Perfetto stack sampling (sentry-java {@code PerfettoProfiler.PROFILING_FREQUENCY_HZ}), or
     * the gaps when they are shorter (the kernel adjusts perf's period to approximate the frequency asked for), so
     * that no thread is said to have run longer than it was sampled.
     */
    static long of(ProfileChunk chunk) {
        long gaps = medianThreadDelta(chunk);
        return chunk.sampledTime() == SampledTime.CPU ? Math.min(DEFAULT_NANOS, gaps) : gaps;
    }

    /**
     * The median of the gaps between consecutive samples of the same thread (threads are sampled
     * together, so gaps across threads say nothing); {@link #DEFAULT_NANOS} when no thread has two
     * samples at distinct times.
     */
    static long medianThreadDelta(ProfileChunk chunk) {
        int n = chunk.sampleCount();
        long[] previous = new long[chunk.threadCount()];
        boolean[] seen = new boolean[chunk.threadCount()];
        // gaps fit an int (up to 2.1 s) in every real chunk: half the memory of longs, widened only when one does not
        int[] deltas = new int[n];
        long[] wide = null;
        int count = 0;
        for (int s = 0; s < n; s++) {
            int thread = chunk.sampleThreadIndex(s);
            long t = chunk.sampleTimestampNanos(s);
            if (seen[thread] && t > previous[thread]) {
                long delta = t - previous[thread];
                if (wide == null && delta > Integer.MAX_VALUE) {
                    wide = new long[n];
                    for (int i = 0; i < count; i++) {
                        wide[i] = deltas[i];
                    }
                }
                if (wide != null) {
                    wide[count++] = delta;
                } else {
                    deltas[count++] = (int) delta;
                }
            }
            previous[thread] = t;
            seen[thread] = true;
        }
        if (count == 0) {
            return DEFAULT_NANOS;
        }
        int mid = count / 2;
        if (wide != null) {
            Arrays.sort(wide, 0, count);
            return count % 2 == 1 ? wide[mid] : wide[mid - 1] + (wide[mid] - wide[mid - 1]) / 2;
        }
        int upper = select(deltas, count, mid);
        if (count % 2 == 1) {
            return upper;
        }
        // after the selection, everything left of mid is no greater than it: the lower middle is their maximum
        int lower = deltas[0];
        for (int i = 1; i < mid; i++) {
            lower = Math.max(lower, deltas[i]);
        }
        return lower + ((long) upper - lower) / 2;
    }

    /**
     * The k-th smallest of {@code values[0..n)}, moving smaller values left of k and larger ones right (quickselect:
     * linear on average, where a sort is n log n). Past a depth of 2 log n, a range is sorted instead, so a chunk
     * made to defeat the pivots costs no more than the sort.
     */
    static int select(int[] values, int n, int k) {
        int lo = 0;
        int hi = n - 1;
        int depthLeft = 2 * (32 - Integer.numberOfLeadingZeros(Math.max(n, 1)));
        while (hi > lo) {
            if (depthLeft-- == 0) {
                Arrays.sort(values, lo, hi + 1);
                return values[k];
            }
            int pivot = medianOfThree(values[lo], values[lo + (hi - lo) / 2], values[hi]);
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (values[i] < pivot) {
                    i++;
                }
                while (values[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    int swap = values[i];
                    values[i++] = values[j];
                    values[j--] = swap;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                return values[k];
            }
        }
        return values[k];
    }

    private static int medianOfThree(int a, int b, int c) {
        return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    }
}
