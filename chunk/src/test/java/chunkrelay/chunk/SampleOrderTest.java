package chunkrelay.chunk;

import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

class SampleOrderTest {

    /** What a stable sort of the indices by time gives: the reference the merge sort must match. */
    private static int[] referenceOrder(long[] times) {
        return IntStream.range(0, times.length).boxed().sorted(Comparator.comparingLong(i -> times[i]))
                .mapToInt(Integer::intValue).toArray();
    }

    private static long[] times(Random random, int n, int runs, int distinct) {
        long[] times = new long[n];
        int runLength = Math.max(1, n / runs);
        for (int i = 0; i < n; i++) {
            // ascending runs, restarting below where the run before ended, with ties
            times[i] = (i % runLength) * 10L + random.nextInt(distinct);
        }
        return times;
    }

    @Test
    void ordersLikeAStableSortWhateverTheRunsAndTies() {
        Random random = new Random(29);
        for (int n : new int[]{0, 1, 2, 3, 7, 100, 22_202}) {
            for (int runs : new int[]{1, 2, 3, 15, n / 2 + 1, n + 1}) {
                for (int distinct : new int[]{1, 3, 1000}) {
                    long[] times = times(random, n, runs, distinct);
                    assertArrayEquals(referenceOrder(times), SampleOrder.stableOrder(times, n),
                            n + " samples, " + runs + " runs, " + distinct + " distinct offsets");
                }
            }
        }
    }

    @Test
    void sortsTheParallelArraysTogetherKeepingEqualTimesInTheirOrder() {
        long[] times = {30, 10, 20, 10, 5, 30};
        int[] stacks = {0, 1, 2, 3, 4, 5};
        int[] threads = {10, 11, 12, 13, 14, 15};
        SampleOrder.stableSortByTime(times, stacks, threads, times.length);
        assertArrayEquals(new long[]{5, 10, 10, 20, 30, 30}, times);
        assertArrayEquals(new int[]{4, 1, 3, 2, 0, 5}, stacks);
        assertArrayEquals(new int[]{14, 11, 13, 12, 10, 15}, threads);
    }
}
