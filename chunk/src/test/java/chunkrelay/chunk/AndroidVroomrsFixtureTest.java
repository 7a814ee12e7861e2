package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.ArtTraces;
import chunkrelay.chunk.fixtures.Fixtures;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * vroomrs's Android chunks are Relay's output (the trace already decoded under {@code profile}, no
 * {@code sampled_profile}): as stored they are not an SDK chunk and Relay's routing refuses them; their decoded trace,
 * written back into ART's binary form and sent as the SDK would, converts to the frames, thread and times they hold.
 */
class AndroidVroomrsFixtureTest {
    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    @Test
    void relaysDecodedOutputAsStoredIsPlatformNotSupported() {
        for (String fixture : new String[] {"vroomrs/android__chunk__valid.json",
                "vroomrs/android__chunk__valid_2_android_trace.json"}) {
            ChunkRejection rejection = assertInstanceOf(ChunkOutcome.Rejected.class, processor.process(
                    Fixtures.bytes(fixture), new ChunkItemHeader("android", null))).rejection();
            assertEquals(ChunkRejectionReason.PLATFORM_NOT_SUPPORTED, rejection.reason(), fixture);
        }
    }

    @Test
    void decodedTraceReEncodedAsTheSdkSendsItConvertsToTheSameFramesThreadAndTimes() throws Exception {
        JsonNode stored = TestChunks.JSON.readTree(Fixtures.bytes("vroomrs/android__chunk__valid_2_android_trace.json"));
        JsonNode profile = stored.get("profile");
        ArtTraces.Builder trace = ArtTraces.builder()
                .elapsedMicros(Long.toString(stored.get("duration_ns").asLong() / 1_000));
        for (JsonNode thread : profile.get("threads")) {
            trace.thread(thread.get("id").asInt(), thread.get("name").asText());
        }
        for (JsonNode method : profile.get("methods")) {
            trace.method(method.get("id").asInt(), method.get("class_name").asText(), method.get("name").asText(),
                    "(I)Z", method.get("source_file").asText());
        }
        for (JsonNode event : profile.get("events")) {
            long micros = event.get("time").get("Monotonic").get("wall").get("nanos").asLong() / 1_000;
            int thread = event.get("thread_id").asInt();
            int method = event.get("method_id").asInt();
            if (event.get("action").asText().equals("Enter")) {
                trace.enter(thread, method, micros);
            } else {
                trace.exit(thread, method, micros);
            }
        }
        ObjectNode sdkChunk = ((ObjectNode) stored.deepCopy());
        sdkChunk.remove(java.util.List.of("profile", "duration_ns", "organization_id", "project_id", "received",
                "retention_days"));
        sdkChunk.put("version", "2");
        sdkChunk.put("sampled_profile", Base64.getEncoder().withoutPadding().encodeToString(trace.build()));

        ProfileChunk chunk = assertInstanceOf(ChunkOutcome.Accepted.class, processor.process(
                TestChunks.JSON.writeValueAsBytes(sdkChunk), new ChunkItemHeader("android", null))).chunk();
        assertEquals(1, chunk.frames().size());
        Frame frame = chunk.frames().get(0);
        assertEquals("sun.util.calendar.CalendarUtils", frame.module());
        assertEquals("isGregorianLeapYear", frame.function());
        assertEquals("CalendarUtils.java", frame.filename());
        assertEquals("main", chunk.threadMetadata().get("6689").name());
        // one stack change: entered at 195 914 µs, left 1.9 µs later (within the same µs as ART writes it)
        assertEquals(1, chunk.sampleCount());
        long origin = 1_737_465_052_423_000_000L;
        assertEquals(origin + 195_914_000L, chunk.sampleTimestampNanos(0));
        assertEquals("2", chunk.version());
        assertEquals(1, chunk.debugImages().size());
        assertTrue(chunk.measurements().containsKey("cpu_usage"));
    }
}
