package chunkrelay.translate;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static chunkrelay.translate.TestChunk.function;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SamplingPeriodTest {

    private static TestChunk chunkWithOneStack() {
        TestChunk chunk = new TestChunk();
        chunk.stack(chunk.frame(function("main", "app.js", 1)));
        return chunk;
    }

    @Test
    void isTheMedianGapBetweenSamplesOfTheSameThreadNotAcrossThreads() {
        TestChunk chunk = chunkWithOneStack();
        // thread 1 every 10 ms, thread 2 every 30 ms, interleaved 1 ms apart
        for (int i = 0; i < 5; i++) {
            chunk.sample(i * 10_000_000L, 0, "1");
        }
        for (int i = 0; i < 3; i++) {
            chunk.sample(1_000_000L + i * 30_000_000L, 0, "2");
        }
        // gaps: 10, 10, 10, 10 (thread 1) and 30, 30 (thread 2): median of six is between 10 and 10
        assertEquals(10_000_000L, SamplingPeriod.medianThreadDelta(chunk.build()));
    }

    @Test
    void anEvenCountTakesTheMidpointOfTheMiddleGaps() {
        TestChunk chunk = chunkWithOneStack();
        long[] offsets = {0, 10_000_000L, 30_000_000L};
        for (long offset : offsets) {
            chunk.sample(offset, 0, "1");
        }
        assertEquals(15_000_000L, SamplingPeriod.medianThreadDelta(chunk.build()));
    }

    @Test
    void gapsLongerThanAnIntHoldsAreMeasuredExactly() {
        TestChunk chunk = chunkWithOneStack();
        long[] offsets = {0, 3_000_000_000L, 6_000_000_000L, 9_500_000_000L};
        for (long offset : offsets) {
            chunk.sample(offset, 0, "1");
        }
        // gaps 3.0 s, 3.0 s, 3.5 s
        assertEquals(3_000_000_000L, SamplingPeriod.medianThreadDelta(chunk.build()));
    }

    @Test
    void aChunkWithoutTwoSamplesAtDistinctTimesOnAThreadHasTheSdkDefault() {
        TestChunk chunk = chunkWithOneStack();
        chunk.sample(0, 0, "1").sample(0, 0, "1").sample(5_000_000L, 0, "2");
        assertEquals(SamplingPeriod.DEFAULT_NANOS, SamplingPeriod.medianThreadDelta(chunk.build()));
    }

    @Test
    void selectFindsWhatASortPutsAtEachRankWhateverTheOrder() {
        Random random = new Random(27);
        for (int n : new int[]{1, 2, 3, 10, 101, 4096}) {
            int[][] inputs = {
                    random.ints(n, 0, 50).toArray(),
                    random.ints(n).toArray(),
                    java.util.stream.IntStream.range(0, n).toArray(),
                    java.util.stream.IntStream.range(0, n).map(i -> n - i).toArray(),
                    new int[n],
                    // organ pipe: ascending then descending, a classic bad case for middle pivots
                    java.util.stream.IntStream.range(0, n).map(i -> Math.min(i, n - i)).toArray()};
            for (int[] input : inputs) {
                int[] sorted = input.clone();
                Arrays.sort(sorted);
                for (int k : new int[]{0, n / 2, n - 1}) {
                    int[] values = input.clone();
                    int found = SamplingPeriod.select(values, n, k);
                    assertEquals(sorted[k], found, "rank " + k + " of " + n);
                    for (int i = 0; i < k; i++) {
                        assertTrue(values[i] <= found, "left of rank " + k + " at " + i);
                    }
                    for (int i = k + 1; i < n; i++) {
                        assertTrue(values[i] >= found, "right of rank " + k + " at " + i);
                    }
                }
            }
        }
    }
}
