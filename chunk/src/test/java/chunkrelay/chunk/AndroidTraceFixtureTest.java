package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.ArtTraces;
import chunkrelay.chunk.fixtures.Fixtures;
import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real ART sampling trace of fixtures/android, wrapped in a chunk as the Android SDK sends it, against the counts
 * of the research note (android-chunks.md section 6): 40 threads with events, 533 distinct stacks, depth 83, about
 * 1 029 samples of {@code main} and 35 200 in all at the estimated interval of about 5 768 µs.
 */
class AndroidTraceFixtureTest {
    private static final long ELAPSED_MICROS = 6_365_893;
    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    private ProfileChunk wrappedRealTrace() {
        ChunkOutcome outcome = processor.process(ArtTraces.wrappedChunk(ArtTraces.realSamplingTrace()),
                new ChunkItemHeader("android", "application-json"));
        if (outcome instanceof ChunkOutcome.Rejected rejected) {
            throw new AssertionError("rejected: " + rejected.rejection());
        }
        return assertInstanceOf(ChunkOutcome.Accepted.class, outcome).chunk();
    }

    @Test
    void realTraceGivesTheNotesThreadStackAndDepthCounts() {
        ProfileChunk chunk = wrappedRealTrace();
        assertEquals(40, chunk.threadCount());
        assertEquals(533, chunk.stackCount());
        int maxDepth = 0;
        for (int s = 0; s < chunk.stackCount(); s++) {
            maxDepth = Math.max(maxDepth, chunk.stackDepth(s));
        }
        assertEquals(83, maxDepth);
    }

    @Test
    void realTraceGivesTheNotesSampleCountsWithinAFewPercent() {
        ProfileChunk chunk = wrappedRealTrace();
        int main = -1;
        for (int t = 0; t < chunk.threadCount(); t++) {
            if ("main".equals(chunk.threadMetadata().get(chunk.threadId(t)).name())) {
                main = t;
            }
        }
        int mainSamples = 0;
        for (int s = 0; s < chunk.sampleCount(); s++) {
            if (chunk.sampleThreadIndex(s) == main) {
                mainSamples++;
            }
        }
        assertEquals(1029, mainSamples, 1029 * 0.03, "samples of main");
        assertEquals(35_200, chunk.sampleCount(), 35_200 * 0.03, "samples of all threads");
        // sample counts mean time: main lives from its first event to the end of the trace, and real gaps are a
        // little longer than the interval, so its samples are slightly fewer than that span over the interval
        double span = (ELAPSED_MICROS - 113_741) / 5_768.0;
        assertTrue(mainSamples <= span + 1 && mainSamples >= 0.9 * span, mainSamples + " samples for " + span);
    }

    @Test
    void realTraceSampleTimesLieWithinTimestampAndElapsedTime() {
        ProfileChunk chunk = wrappedRealTrace();
        long start = 1_763_800_000_250_000_000L;
        long end = start + ELAPSED_MICROS * 1_000;
        long previous = Long.MIN_VALUE;
        for (int s = 0; s < chunk.sampleCount(); s++) {
            long t = chunk.sampleTimestampNanos(s);
            assertTrue(t >= start && t <= end, "sample " + s + " at " + t);
            assertTrue(t >= previous, "samples sorted by time");
            previous = t;
        }
        // the first record of the trace: main at wall offset 113 741 µs
        assertEquals(start + 113_741_000L, chunk.sampleTimestampNanos(0));
    }

    @Test
    void realTraceFramesNameClassMethodSignatureAndUnknownIds() {
        ProfileChunk chunk = wrappedRealTrace();
        Frame first = chunk.frames().get(0);
        assertEquals("com.android.internal.os.ZygoteInit", first.module());
        assertEquals("main", first.function());
        assertEquals("([Ljava/lang/String;)V", first.signature());
        assertEquals("ZygoteInit.java", first.filename());
        Set<String> unknown = new HashSet<>();
        for (Frame frame : chunk.frames()) {
            if (frame.function().startsWith("unknown (id 0x")) {
                unknown.add(frame.function());
            }
        }
        assertTrue(!unknown.isEmpty(), "the fixture references method ids missing from *methods");
        assertEquals("android", chunk.platform());
        assertEquals("io.example.app@1.0+1", chunk.release());
        assertEquals("sentry.java.android", chunk.clientSdk().name());
        assertTrue(chunk.measurements().containsKey("cpu_usage"));
    }

    @Test
    void twoAndroidTraceVersionWithSampledProfileTakesTheSamePath() {
        String base64 = Base64.getEncoder().withoutPadding().encodeToString(ArtTraces.realSamplingTrace());
        ChunkOutcome outcome = processor.process(ArtTraces.wrappedChunk(base64, "2.android-trace"),
                new ChunkItemHeader("android", null));
        assertEquals(533, assertInstanceOf(ChunkOutcome.Accepted.class, outcome).chunk().stackCount());
    }

    @Test
    void fixtureIsTheDocumentedFile() {
        // guards the licence notice: the copy is the unmodified upstream file
        assertEquals(78_284, Fixtures.bytes("android/art-trace-regular.trace.gz").length);
        assertEquals(450_421, ArtTraces.realSamplingTrace().length);
    }
}
