package chunkrelay.chunk;

import chunkrelay.chunk.primitive.GrowableIntArray;

/**
 * Stable sort of parallel sample arrays by timestamp, on primitives (a natural merge sort over an index
 * permutation), so a million samples sort without boxing. Already sorted input, the usual case, costs
 * one pass.
 */
public final class SampleOrder {

    private SampleOrder() {
    }

    /** Sorts the first {@code n} samples. */
    static void stableSortByTime(long[] times, int[] stacks, int[] threads, int n) {
        if (isSorted(times, n)) {
            return;
        }
        int[] scratch = new int[n];
        int[] order = stableOrder(times, n, scratch);
        long[] sortedTimes = new long[n];
        for (int i = 0; i < n; i++) {
            sortedTimes[i] = times[order[i]];
        }
        System.arraycopy(sortedTimes, 0, times, 0, n);
        permute(stacks, order, scratch, n);
        permute(threads, order, scratch, n);
    }

    /** The indices of the first {@code n} times in time order; equal times keep their order. */
    public static int[] stableOrder(long[] times, int n) {
        return stableOrder(times, n, null);
    }

    /**
     * A natural merge sort: the ascending runs the input already has (an SDK writes each thread's samples in time
     * order, so a chunk holds a few long runs) are merged pairwise until one is left; sorted input is one run.
     *
     * @param scratch {@code n} ints to merge through, or null to allocate them only when there is merging to do
     */
    private static int[] stableOrder(long[] times, int n, int[] scratch) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        GrowableIntArray starts = new GrowableIntArray();
        starts.add(0);
        for (int i = 1; i < n; i++) {
            if (times[i] < times[i - 1]) {
                starts.add(i);
            }
        }
        int[] runs = starts.toArray();
        int count = runs.length;
        if (count > 1 && scratch == null) {
            scratch = new int[n];
        }
        while (count > 1) {
            int merged = 0;
            for (int r = 0; r < count; r += 2) {
                if (r + 1 < count) {
                    int hi = r + 2 < count ? runs[r + 2] : n;
                    merge(times, order, scratch, runs[r], runs[r + 1], hi);
                }
                runs[merged++] = runs[r];
            }
            count = merged;
        }
        return order;
    }

    private static boolean isSorted(long[] times, int n) {
        for (int i = 1; i < n; i++) {
            if (times[i] < times[i - 1]) {
                return false;
            }
        }
        return true;
    }

    /** Merges order[lo..mid) and order[mid..hi); on ties the left run goes first, which keeps it stable. */
    private static void merge(long[] times, int[] order, int[] scratch, int lo, int mid, int hi) {
        int left = lo;
        int right = mid;
        int out = lo;
        while (left < mid && right < hi) {
            scratch[out++] = times[order[right]] < times[order[left]] ? order[right++] : order[left++];
        }
        while (left < mid) {
            scratch[out++] = order[left++];
        }
        while (right < hi) {
            scratch[out++] = order[right++];
        }
        System.arraycopy(scratch, lo, order, lo, hi - lo);
    }

    private static void permute(int[] values, int[] order, int[] scratch, int n) {
        for (int i = 0; i < n; i++) {
            scratch[i] = values[order[i]];
        }
        System.arraycopy(scratch, 0, values, 0, n);
    }
}
