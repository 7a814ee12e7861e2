package chunkrelay.translate;

import org.junit.jupiter.api.Test;

import static chunkrelay.translate.TestChunk.function;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
