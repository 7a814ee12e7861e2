package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.PerfettoTraces;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.InternedData;

import com.google.protobuf.CodedOutputStream;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static chunkrelay.chunk.ChunkRejectionReason.EXCEED_SIZE_LIMIT;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_JSON;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_PROFILE_TYPE;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_SAMPLED_PROFILE;
import static chunkrelay.chunk.ChunkRejectionReason.NOT_ENOUGH_SAMPLES;
import static chunkrelay.chunk.ChunkRejectionReason.PLATFORM_NOT_SUPPORTED;
import static chunkrelay.chunk.fixtures.PerfettoTraces.callstack;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a compound Perfetto item is split and which of Relay's reasons refuses it. */
class PerfettoChunkRulesTest {
    private static final byte[] TRACE = PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC);

    @Test
    void metadataIsTheFirstMetaLengthBytesAndTheTraceTheRest() {
        ProfileChunk chunk = PerfettoChunks.accepted(TRACE);
        assertEquals(PerfettoTraces.CHUNK_ID, chunk.chunkId().toHex());
        assertEquals("io.sentry.samples.android@8.53.0+1", chunk.release());
        assertEquals("production", chunk.environment());
        assertEquals("sentry.java.android", chunk.clientSdk().name());
        assertTrue(chunk.measurements().containsKey("screen_frame_rates"), chunk.measurements().toString());
        assertEquals(PerfettoTraces.resolvableSamples(TRACE), chunk.sampleCount());
    }

    @Test
    void bothContentTypesTheSdkAndRelayUseAreAccepted() {
        for (String contentType : PerfettoChunk.CONTENT_TYPES) {
            assertInstanceOf(ChunkOutcome.Accepted.class,
                    PerfettoChunks.process(PerfettoTraces.metadata(contentType), TRACE), contentType);
        }
    }

    @Test
    void anyOtherMetadataContentTypeIsPlatformNotSupported() {
        assertRejected(PerfettoChunks.process(PerfettoTraces.metadata("application/x-simpleperf"), TRACE),
                PLATFORM_NOT_SUPPORTED, "x-simpleperf");
        assertRejected(PerfettoChunks.process(PerfettoTraces.metadata("perfetto").replace(
                ",\"content_type\":\"perfetto\"", ""), TRACE), PLATFORM_NOT_SUPPORTED, "content_type");
    }

    @Test
    void metaLengthPastThePayloadIsInvalidSampledProfile() {
        byte[] meta = PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE).getBytes(StandardCharsets.UTF_8);
        byte[] payload = PerfettoTraces.payload(meta, TRACE);
        assertRejected(PerfettoChunks.PROCESSOR.process(payload,
                new ChunkItemHeader("android", PerfettoTraces.CONTENT_TYPE, payload.length + 1L)),
                INVALID_SAMPLED_PROFILE, "past the end");
    }

    @Test
    void aMissingRequiredFieldIsInvalidJson() {
        for (String field : new String[] {"chunk_id", "profiler_id", "platform", "client_sdk"}) {
            String metadata = PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE)
                    .replaceFirst("\"" + field + "\":(\"[^\"]*\"|\\{[^}]*\\}),?", "");
            assertRejected(PerfettoChunks.process(metadata, TRACE), INVALID_JSON, field);
        }
    }

    @Test
    void releaseAndTimestampAreOptionalAsInRelaysFixture() {
        String metadata = "{\"version\":\"2\",\"chunk_id\":\"" + PerfettoTraces.CHUNK_ID + "\",\"profiler_id\":\""
                + PerfettoTraces.PROFILER_ID + "\",\"platform\":\"android\",\"content_type\":\"perfetto\","
                + "\"client_sdk\":{\"name\":\"sentry-android\",\"version\":\"1.0\"}}";
        assertInstanceOf(ChunkOutcome.Accepted.class, PerfettoChunks.process(metadata, TRACE));
    }

    @Test
    void metadataThatIsNotJsonIsInvalidJson() {
        assertRejected(PerfettoChunks.process("{\"chunk_id\":", TRACE), INVALID_JSON, "JSON");
    }

    @Test
    void headerPlatformOtherThanTheMetadatasIsInvalidProfileType() {
        byte[] meta = PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE).getBytes(StandardCharsets.UTF_8);
        assertRejected(PerfettoChunks.PROCESSOR.process(PerfettoTraces.payload(meta, TRACE),
                new ChunkItemHeader("cocoa", PerfettoTraces.CONTENT_TYPE, (long) meta.length)),
                INVALID_PROFILE_TYPE, "cocoa");
    }

    @Test
    void bytesThatAreNotATraceAreInvalidSampledProfile() {
        assertRejected(PerfettoChunks.process("not a valid protobuf".getBytes(StandardCharsets.UTF_8)),
                INVALID_SAMPLED_PROFILE, "Perfetto");
        // a packet field that is not length-delimited
        assertRejected(PerfettoChunks.process(new byte[] {0x08, 0x01}), INVALID_SAMPLED_PROFILE, "wire type");
        // a packet longer than what is left
        assertRejected(PerfettoChunks.process(new byte[] {0x0a, 0x05, 0x00}), INVALID_SAMPLED_PROFILE, "past the end");
    }

    @Test
    void aTraceWithoutSamplesIsNotEnoughSamples() {
        assertRejected(PerfettoChunks.process(new byte[0]), NOT_ENOUGH_SAMPLES, "no PerfSample");
        byte[] unresolved = PerfettoTraces.builder().clockSnapshot(1, 2).sample(5, 1, 1, 1, 7).build();
        assertRejected(PerfettoChunks.process(unresolved), NOT_ENOUGH_SAMPLES, "callstack");
    }

    @Test
    void samplesWithoutAClockSnapshotAreInvalidSampledProfile() {
        byte[] trace = PerfettoTraces.builder().interned(1, true, PerfettoConversionTest.oneFrame("f"))
                .sample(5, 1, 1, 1, 1).build();
        assertRejected(PerfettoChunks.process(trace), INVALID_SAMPLED_PROFILE, "ClockSnapshot");
        // a snapshot without REALTIME does not place the samples either
        byte[] noRealtime = PerfettoTraces.builder()
                .clockSnapshot(6, PerfettoTraces.Builder.clock(6, 1), PerfettoTraces.Builder.clock(4, 2))
                .interned(1, true, PerfettoConversionTest.oneFrame("f")).sample(5, 1, 1, 1, 1).build();
        assertRejected(PerfettoChunks.process(noRealtime), INVALID_SAMPLED_PROFILE, "ClockSnapshot");
    }

    @Test
    void aPacketOverFourMebibytesIsExceedSizeLimitBeforeItIsRead() {
        byte[] trace = {0x0a, (byte) 0x81, (byte) 0x80, (byte) 0x80, 0x02};
        assertRejected(PerfettoChunks.process(trace), EXCEED_SIZE_LIMIT, "4194305");
    }

    @Test
    void tooManyPacketsIsExceedSizeLimit() {
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        for (int i = 0; i < 110_000; i++) {
            trace.write(0x0a);
            trace.write(0);
        }
        assertRejected(PerfettoChunks.process(trace.toByteArray()), EXCEED_SIZE_LIMIT, "packets");
    }

    @Test
    void tooManySamplesIsExceedSizeLimit() throws IOException {
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        byte[] sample = PerfettoTraces.builder().sample(1, 1, 1, 1, 1).build();
        for (int i = 0; i < 100_000; i++) {
            trace.write(sample);
        }
        assertRejected(PerfettoChunks.process(trace.toByteArray()), EXCEED_SIZE_LIMIT, "samples");
    }

    @Test
    void aCallstackDeeperThanAThousandFramesIsExceedSizeLimit() {
        long[] frames = new long[1001];
        java.util.Arrays.fill(frames, 1);
        byte[] trace = PerfettoTraces.builder().clockSnapshot(1, 2)
                .interned(1, true, InternedData.newBuilder().addFunctionNames(PerfettoTraces.string(1, "f"))
                        .addFrames(PerfettoTraces.frame(1, 1)).addCallstacks(callstack(1, frames)).build())
                .sample(5, 1, 1, 1, 1).build();
        assertRejected(PerfettoChunks.process(trace), EXCEED_SIZE_LIMIT, "1001 frames deep");
    }

    @Test
    void tooManySequencesIsExceedSizeLimit() {
        PerfettoTraces.Builder trace = PerfettoTraces.builder();
        for (int sequence = 1; sequence <= 65; sequence++) {
            trace.interned(sequence, true, PerfettoConversionTest.oneFrame("f"));
        }
        assertRejected(PerfettoChunks.process(trace.build()), EXCEED_SIZE_LIMIT, "sequences");
    }

    @Test
    void internedTablesPastTheWorkBudgetAreExceedSizeLimit() throws IOException {
        // packets of 3.5 MiB of interned names each: 12 of them are more than the tables may hold
        InternedData.Builder names = InternedData.newBuilder();
        String name = "x".repeat(3_500);
        for (int i = 0; i < 1_000; i++) {
            names.addFunctionNames(PerfettoTraces.string(i, name));
        }
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        for (int packet = 0; packet < 12; packet++) {
            trace.write(PerfettoTraces.builder().interned(1, false, names.setFunctionNames(0,
                    PerfettoTraces.string(1_000_000 + packet, name)).build()).build());
        }
        assertRejected(PerfettoChunks.process(trace.toByteArray()), EXCEED_SIZE_LIMIT, "MiB");
    }

    @Test
    void unknownTopLevelFieldsAndUnknownPacketFieldsAreSkipped() throws IOException {
        ByteArrayOutputStream trace = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(trace);
        out.writeUInt64(2, 77);
        out.writeString(3, "not a packet");
        out.flush();
        trace.write(TRACE);
        assertEquals(PerfettoTraces.resolvableSamples(TRACE), PerfettoChunks.accepted(trace.toByteArray()).sampleCount());
    }

    private static void assertRejected(ChunkOutcome outcome, ChunkRejectionReason reason, String detail) {
        ChunkRejection rejection = PerfettoChunks.rejected(outcome);
        assertEquals(reason, rejection.reason(), rejection.detail());
        assertTrue(rejection.detail().contains(detail), rejection.detail());
    }
}
