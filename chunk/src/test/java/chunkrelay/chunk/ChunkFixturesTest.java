package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The recorded SDK chunks and Sentry's own fixtures, with the outcome Relay gives each. */
class ChunkFixturesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ChunkItemHeader NO_HEADER = new ChunkItemHeader(null, null);

    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    static ChunkItemHeader headerOf(JsonNode itemHeader) {
        return new ChunkItemHeader(
                itemHeader.hasNonNull("platform") ? itemHeader.get("platform").asText() : null,
                itemHeader.hasNonNull("content_type") ? itemHeader.get("content_type").asText() : null,
                itemHeader.hasNonNull("meta_length") ? itemHeader.get("meta_length").asLong() : null);
    }

    static ProfileChunk accepted(ChunkOutcome outcome) {
        if (outcome instanceof ChunkOutcome.Rejected rejected) {
            throw new AssertionError("expected accepted, got " + rejected.rejection());
        }
        return ((ChunkOutcome.Accepted) outcome).chunk();
    }

    static ChunkRejection rejected(ChunkOutcome outcome) {
        return assertInstanceOf(ChunkOutcome.Rejected.class, outcome, () -> "expected a rejection, got " + outcome)
                .rejection();
    }

    @TestFactory
    Stream<DynamicTest> acceptsEveryRecordedSdkChunkWithItsItemHeader() {
        List<RecordedChunk> chunks = Fixtures.sdkChunks();
        assertEquals(7, chunks.size(), "node 1 + node-long 3 + java 2 + python 1 recorded chunks");
        return chunks.stream().map(recorded -> DynamicTest.dynamicTest(recorded.request(), () -> {
            ProfileChunk chunk = accepted(processor.process(recorded.payload(), headerOf(recorded.itemHeader())));
            JsonNode raw = JSON.readTree(recorded.payload());
            assertEquals(raw.get("chunk_id").asText().replace("-", "").toLowerCase(), chunk.chunkId().toHex());
            assertEquals(raw.get("platform").asText(), chunk.platform());
            assertTrue(chunk.sampleCount() > 0);
            for (int i = 1; i < chunk.sampleCount(); i++) {
                assertTrue(chunk.sampleTimestampNanos(i - 1) <= chunk.sampleTimestampNanos(i), "sorted at " + i);
            }
        }));
    }

    @Test
    void normalisesRelaysCocoaFixtureToFourSortedSamplesMaskedAddressesAndOneThread() {
        ProfileChunk chunk = accepted(processor.process(Fixtures.bytes("relay/sample_v2_valid.json"), NO_HEADER));

        assertEquals(4, chunk.sampleCount());
        long[] expectedMicros = {1710805788500000L, 1710805788510000L, 1710805788520000L, 1710805788530000L};
        for (int i = 0; i < 4; i++) {
            assertEquals(expectedMicros[i] * 1000, chunk.sampleTimestampNanos(i), "sample " + i);
        }
        assertEquals(0xffffffffcL, chunk.frames().get(0).instructionAddr());
        assertEquals(0x1f5031e58L, chunk.frames().get(1).instructionAddr());
        assertEquals(Set.of("0x0000000102adc700"), chunk.threadMetadata().keySet());
        assertEquals(1, chunk.threadCount());
        assertEquals("0x0000000102adc700", chunk.threadId(0));
        assertEquals("com.apple.main-thread", chunk.threadMetadata().get("0x0000000102adc700").name());
        assertEquals(1, chunk.debugImages().size());
        assertEquals("macho", chunk.debugImages().get(0).type());
        assertEquals("4d229f1d3807421ba62a5f8bc295d836", chunk.profilerId().toHex());
    }

    @Test
    void acceptsVroomrsCocoaChunk() {
        ProfileChunk chunk = accepted(processor.process(Fixtures.bytes("vroomrs/sample__v2__valid_cocoa.json"),
                new ChunkItemHeader("cocoa", null)));
        assertEquals(4, chunk.sampleCount());
    }

    @Test
    void acceptsAndroidPlatformChunkInSampleV2FormatAsRelaysV2PathDoes() {
        // platform android with version "2" and no sampled_profile is an Android ANR-style V2 chunk in Relay
        ProfileChunk chunk = accepted(processor.process(Fixtures.bytes("vroomrs/sample__v2__valid_android.json"),
                new ChunkItemHeader("android", null)));
        assertEquals(5, chunk.sampleCount());
        assertEquals(2, chunk.threadCount());
        assertEquals(Set.of("1", "2"), chunk.threadMetadata().keySet());
    }

    @Test
    void rejectsVroomrsPythonChunkWithOneSampleAsNotEnoughSamples() {
        // Relay prunes threads with fewer than 2 samples before it looks at stacks: the one sample goes
        // first, so Relay answers not_enough_samples although the stack points at missing frames
        ChunkRejection rejection = rejected(processor.process(
                Fixtures.bytes("vroomrs/sample__v2__valid_python.json"), new ChunkItemHeader("python", null)));
        assertEquals(ChunkRejectionReason.NOT_ENOUGH_SAMPLES, rejection.reason());
    }

    @Test
    void rejectsVroomrsPythonChunkAsMalformedStacksOnceItsThreadHasTwoSamples() throws Exception {
        var root = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
                Fixtures.bytes("vroomrs/sample__v2__valid_python.json"));
        var samples = (com.fasterxml.jackson.databind.node.ArrayNode) root.get("profile").get("samples");
        samples.add(samples.get(0).deepCopy());
        ChunkRejection rejection = rejected(processor.process(JSON.writeValueAsBytes(root), NO_HEADER));
        assertEquals(ChunkRejectionReason.MALFORMED_STACKS, rejection.reason());
        assertTrue(rejection.detail().contains("profile.stacks[0][1]"), rejection.detail());
    }

    @Test
    void rejectsLegacyAndroidChunkWithoutVersionAsPlatformNotSupported() {
        ChunkRejection rejection = rejected(processor.process(
                Fixtures.bytes("vroomrs/android__chunk__valid.json"), new ChunkItemHeader("android", null)));
        assertEquals(ChunkRejectionReason.PLATFORM_NOT_SUPPORTED, rejection.reason());
        assertTrue(rejection.detail().contains("Android"), rejection.detail());
    }

    @Test
    void rejectsAndroidTraceVersionWithoutSampledProfileAsPlatformNotSupported() {
        ChunkRejection rejection = rejected(processor.process(
                Fixtures.bytes("vroomrs/android__chunk__valid_2_android_trace.json"),
                new ChunkItemHeader("android", null)));
        assertEquals(ChunkRejectionReason.PLATFORM_NOT_SUPPORTED, rejection.reason());
        assertTrue(rejection.detail().contains("2.android-trace"), rejection.detail());
    }

    @Test
    void keepsTheSamplesAndThreadsOfTheRealJavaChunkThatAnIndependentCountPredicts() throws Exception {
        RecordedChunk recorded = Fixtures.sdkChunks().stream()
                .filter(c -> c.request().equals("java-8.43.0/001")).findFirst().orElseThrow();
        JsonNode profile = JSON.readTree(recorded.payload()).get("profile");

        // independent count: per thread, samples whose stack exists and is non-empty; keep threads with 2+
        JsonNode stacks = profile.get("stacks");
        Map<String, Integer> useful = new HashMap<>();
        Map<String, Integer> all = new HashMap<>();
        for (JsonNode sample : profile.get("samples")) {
            String thread = sample.get("thread_id").asText();
            all.merge(thread, 1, Integer::sum);
            int stack = sample.get("stack_id").asInt();
            if (stack < stacks.size() && stacks.get(stack).size() > 0) {
                useful.merge(thread, 1, Integer::sum);
            }
        }
        Set<String> keptThreads = new HashSet<>();
        int keptSamples = 0;
        for (var entry : useful.entrySet()) {
            if (entry.getValue() > 1) {
                keptThreads.add(entry.getKey());
                keptSamples += all.get(entry.getKey());
            }
        }
        Set<String> keptMetadata = new HashSet<>();
        profile.get("thread_metadata").fieldNames().forEachRemaining(t -> {
            if (keptThreads.contains(t)) {
                keptMetadata.add(t);
            }
        });

        ProfileChunk chunk = accepted(processor.process(recorded.payload(), headerOf(recorded.itemHeader())));

        System.out.printf("java-8.43.0/001: %d samples in the payload, %d kept on %d threads%n",
                profile.get("samples").size(), chunk.sampleCount(), chunk.threadCount());
        assertEquals(keptSamples, chunk.sampleCount());
        assertEquals(keptThreads.size(), chunk.threadCount());
        Set<String> threads = new HashSet<>();
        for (int t = 0; t < chunk.threadCount(); t++) {
            threads.add(chunk.threadId(t));
        }
        assertEquals(keptThreads, threads);
        assertEquals(keptMetadata, chunk.threadMetadata().keySet());
        assertFalse(keptThreads.contains("0"), "thread 0 only has empty stacks in this recording");
        assertEquals(profile.get("frames").size(), chunk.frames().size());
        assertEquals(stacks.size(), chunk.stackCount());
    }

    /**
     * Relay treats a {@code python} chunk as any non-cocoa one (relay-profiling/src/sample/v2.rs: only {@code cocoa}
     * has its addresses masked): every sample and frame of the recording kept, frames as sentry-sdk sent them
     * (qualified name in {@code function}, the module apart, a frame whose line CPython did not know without one),
     * and the metadata of the threads still alive when the chunk was sent, the finished workers having none.
     */
    @Test
    void keepsThePythonChunkAsTheSdkSentIt() throws Exception {
        RecordedChunk recorded = Fixtures.sdkChunks().stream()
                .filter(c -> c.request().equals("python-2.75.0/002")).findFirst().orElseThrow();
        JsonNode profile = JSON.readTree(recorded.payload()).get("profile");

        ProfileChunk chunk = accepted(processor.process(recorded.payload(), headerOf(recorded.itemHeader())));

        assertEquals("python", recorded.itemHeader().get("platform").asText());
        assertEquals(profile.get("samples").size(), chunk.sampleCount());
        assertEquals(5, chunk.threadCount());
        assertEquals(Set.of("MainThread", "sentry.profiler.ThreadContinuousScheduler", "sentry.monitor",
                        "sentry-sdk.BackgroundWorker"),
                chunk.threadMetadata().values().stream().map(ThreadMetadata::name).collect(Collectors.toSet()));
        assertEquals(profile.get("frames").size(), chunk.frames().size());
        Frame restock = chunk.frames().stream().filter(f -> "Inventory.restock".equals(f.function())).findFirst()
                .orElseThrow();
        assertEquals("chunk_relay_workload", restock.module());
        assertEquals("chunk_relay_workload.py", restock.filename());
        assertEquals("/srv/example/app/chunk_relay_workload.py", restock.absPath());
        assertTrue(restock.lineno() > 0);
        assertEquals(Boolean.TRUE, restock.inApp());
        assertEquals(1, chunk.frames().stream().filter(f -> f.lineno() == null).count());
    }
}
