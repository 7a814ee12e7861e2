package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;

import java.util.Arrays;

/** The sampling interval a chunk shows, for {@code Profile.period}. */
final class SamplingPeriod {
    /** Sentry SDKs sample at 101 Hz. */
    static final long DEFAULT_NANOS = 1_000_000_000L / 101;

    private SamplingPeriod() {
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
        Arrays.sort(deltas, 0, count);
        return count % 2 == 1 ? deltas[mid] : deltas[mid - 1] + ((long) deltas[mid] - deltas[mid - 1]) / 2;
    }
}
