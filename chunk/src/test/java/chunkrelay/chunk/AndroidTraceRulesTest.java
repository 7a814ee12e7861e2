package chunkrelay.chunk;

import chunkrelay.chunk.art.ArtLimits;
import chunkrelay.chunk.fixtures.ArtTraces;
import chunkrelay.chunk.fixtures.ArtTraces.Builder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static chunkrelay.chunk.ChunkRejectionReason.DURATION_IS_TOO_LONG;
import static chunkrelay.chunk.ChunkRejectionReason.DURATION_IS_ZERO;
import static chunkrelay.chunk.ChunkRejectionReason.EXCEED_SIZE_LIMIT;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_BASE64_VALUE;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_JSON;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_SAMPLED_PROFILE;
import static chunkrelay.chunk.ChunkRejectionReason.NOT_ENOUGH_SAMPLES;
import static chunkrelay.chunk.ChunkRejectionReason.PLATFORM_NOT_SUPPORTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Android ART trace chunks: one case per rejection rule with Relay's reason name, and one test per quirk of the
 * format (research note section 3) on hand-made traces.
 */
class AndroidTraceRulesTest {
    private static final long ORIGIN_NANOS = 1_763_800_000_250_000_000L;
    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    /** main (tid 7) enters A then B at 0 µs, leaves B at 20 ms; method 2 (C) exists too. */
    private static Builder simple() {
        return ArtTraces.builder()
                .thread(7, "main")
                .method(0, "com.example.A", "run", "()V", "A.java")
                .method(1, "com.example.B", "work", "(I)Z", "B.java")
                .method(2, "com.example.C", "idle", "()V", "")
                .enter(7, 0, 0).enter(7, 1, 0)
                .exit(7, 1, 20_000);
    }

    private static byte[] chunk(Builder trace) {
        return ArtTraces.wrappedChunk(trace.build());
    }

    private static byte[] chunkText(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static String base64(byte[] trace) {
        return Base64.getEncoder().withoutPadding().encodeToString(trace);
    }

    record Case(String name, byte[] payload, ChunkRejectionReason reason, String detail) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Case rejects(String name, byte[] payload, ChunkRejectionReason reason, String detail) {
        return new Case(name, payload, reason, detail);
    }

    private static byte[] withoutField(String field) {
        String json = new String(chunk(simple()), StandardCharsets.UTF_8);
        String edited = json.replaceFirst("\"" + field + "\":(\\{[^}]*}|\"[^\"]*\"|[0-9.]+),", "")
                .replaceFirst(",\"" + field + "\":[0-9.]+}", "}");
        assertTrue(!edited.equals(json), field);
        return chunkText(edited);
    }

    private static byte[] traceEdited(UnaryOperator<String> edit) {
        byte[] trace = simple().build();
        String latin1 = new String(trace, StandardCharsets.ISO_8859_1);
        return ArtTraces.wrappedChunk(edit.apply(latin1).getBytes(StandardCharsets.ISO_8859_1));
    }

    static Stream<Case> rejections() {
        String valid = base64(simple().build());
        byte[] oneByteMore = simple().trailing((byte) 0).build();
        byte[] withPadding = simple().build();
        while (withPadding.length % 3 == 0) {
            withPadding = simple().trailing(new byte[withPadding.length % 3 + 1]).build();
        }
        String padded = Base64.getEncoder().encodeToString(withPadding);
        String unpadded = base64(oneByteMore);
        return Stream.of(
                // 1. the chunk's JSON (Relay's AndroidProfileChunk)
                rejects("missingTimestampIsInvalidJson", withoutField("timestamp"), INVALID_JSON, "timestamp"),
                rejects("missingReleaseIsInvalidJson", withoutField("release"), INVALID_JSON, "release"),
                rejects("missingClientSdkIsInvalidJson", withoutField("client_sdk"), INVALID_JSON, "client_sdk"),
                rejects("missingProfilerIdIsInvalidJson", withoutField("profiler_id"), INVALID_JSON, "profiler_id"),
                rejects("sampledProfileNotAStringIsInvalidJson", chunkText(new String(chunk(simple()),
                        StandardCharsets.UTF_8).replace("\"sampled_profile\":\"" + valid + "\"", "\"sampled_profile\":7")),
                        INVALID_JSON, "sampled_profile"),
                // 2. strict unpadded base64
                rejects("paddedBase64IsInvalidBase64", ArtTraces.wrappedChunk(padded, "2"), INVALID_BASE64_VALUE,
                        "padding"),
                rejects("base64WithLineBreakIsInvalidBase64",
                        ArtTraces.wrappedChunk(valid.substring(0, 8) + "\\n" + valid.substring(8), "2"),
                        INVALID_BASE64_VALUE, "alphabet"),
                rejects("base64UrlAlphabetIsInvalidBase64", ArtTraces.wrappedChunk("_-" + valid.substring(2), "2"),
                        INVALID_BASE64_VALUE, "alphabet"),
                rejects("base64WithNonZeroTrailingBitsIsInvalidBase64", ArtTraces.wrappedChunk(
                        unpadded.substring(0, unpadded.length() - 1) + "B", "2"), INVALID_BASE64_VALUE, "trailing"),
                rejects("base64OfImpossibleLengthIsInvalidBase64", ArtTraces.wrappedChunk(valid + "A".repeat(
                        (5 - valid.length() % 4) % 4), "2"), INVALID_BASE64_VALUE, "length"),
                // 3. the trace (android_trace_log's rules)
                rejects("traceWithoutVersionLineIsInvalidSampledProfile",
                        traceEdited(t -> t.replaceFirst("\\*version\n", "*versio\n")), INVALID_SAMPLED_PROFILE, "*version"),
                rejects("traceVersionFourIsInvalidSampledProfile",
                        traceEdited(t -> t.replaceFirst("\\*version\n3\n", "*version\n4\n")), INVALID_SAMPLED_PROFILE,
                        "version"),
                rejects("unknownHeaderKeyIsInvalidSampledProfile", chunk(simple().headerLine("flavour=vanilla")),
                        INVALID_SAMPLED_PROFILE, "flavour"),
                rejects("unknownClockIsInvalidSampledProfile", traceEdited(t -> t.replace("clock=dual", "clock=cpu")),
                        INVALID_SAMPLED_PROFILE, "clock"),
                rejects("nonNumericElapsedTimeIsInvalidSampledProfile", chunk(simple().elapsedMicros("12ms")),
                        INVALID_SAMPLED_PROFILE, "12ms"),
                rejects("threadLineWithoutNameIsInvalidSampledProfile", chunk(simple().threadLine("8\t")),
                        INVALID_SAMPLED_PROFILE, "thread"),
                rejects("threadIdBeyondSixteenBitsIsInvalidSampledProfile", chunk(simple().thread(70_000, "x")),
                        INVALID_SAMPLED_PROFILE, "thread"),
                rejects("methodLineWithoutSignatureIsInvalidSampledProfile",
                        chunk(simple().methodLine("0x10\tcom.example.D\tgo\t\tD.java")), INVALID_SAMPLED_PROFILE,
                        "method"),
                rejects("invalidUtf8InAThreadNameIsInvalidSampledProfile",
                        traceEdited(t -> t.replace("7\tmain", "7\tma\u00ffin")), INVALID_SAMPLED_PROFILE, "thread"),
                rejects("unknownSectionIsInvalidSampledProfile",
                        traceEdited(t -> t.replace("*methods\n", "*classes\n*methods\n")), INVALID_SAMPLED_PROFILE,
                        "*classes"),
                rejects("textWithoutEndIsInvalidSampledProfile",
                        ArtTraces.wrappedChunk("*version\n3\nclock=dual\n".getBytes(StandardCharsets.US_ASCII)),
                        INVALID_SAMPLED_PROFILE, "*end"),
                rejects("wrongMagicIsInvalidSampledProfile", traceEdited(t -> t.replace("SLOW", "FAST")),
                        INVALID_SAMPLED_PROFILE, "SLOW"),
                rejects("streamingBinaryVersionIsInvalidSampledProfile", chunk(simple().binaryVersion(0xF3)),
                        INVALID_SAMPLED_PROFILE, "0xf3"),
                rejects("recordOffsetPastTheEndIsInvalidSampledProfile", ArtTraces.wrappedChunk(java.util.Arrays.copyOf(
                        ArtTraces.builder().thread(1, "main").offset(4000).build(), 3000)), INVALID_SAMPLED_PROFILE,
                        "offset"),
                // 4. events
                rejects("traceWithoutRecordsIsNotEnoughSamples", chunk(ArtTraces.builder().thread(7, "main")
                        .method(0, "A", "a", "()V", "")), NOT_ENOUGH_SAMPLES, "no events"),
                rejects("firstRecordWithActionThreeEndsTheEventsSoNotEnoughSamples",
                        chunk(ArtTraces.builder().thread(7, "main").record(7, 3, 0).enter(7, 0, 10)),
                        NOT_ENOUGH_SAMPLES, "no events"),
                rejects("onlyExitsLeaveNoStackSoNotEnoughSamples", chunk(ArtTraces.builder().thread(7, "main")
                        .exit(7, 0, 0).exit(7, 1, 10)), NOT_ENOUGH_SAMPLES, "non-empty stack"),
                rejects("emptySampledProfileIsNotEnoughSamples", ArtTraces.wrappedChunk("", "2"), NOT_ENOUGH_SAMPLES,
                        "empty"),
                // 5. the header's elapsed time
                rejects("elapsedTimeZeroIsDurationIsZero", chunk(simple().elapsedMicros("0")), DURATION_IS_ZERO,
                        "elapsed-time-usec"),
                rejects("missingElapsedTimeIsDurationIsZero", chunk(simple().elapsedMicros(null)), DURATION_IS_ZERO,
                        "elapsed-time-usec"),
                rejects("elapsedTimeOverSixtySixSecondsIsDurationIsTooLong", chunk(simple().elapsedMicros("66000001")),
                        DURATION_IS_TOO_LONG, "66000001"),
                // routing
                rejects("androidChunkWithoutVersionIsPlatformNotSupported", chunkText(new String(chunk(simple()),
                        StandardCharsets.UTF_8).replace("\"version\":\"2\",", "")), PLATFORM_NOT_SUPPORTED, "version"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejections")
    void rejectsWithRelaysReason(Case c) {
        ChunkOutcome outcome = processor.process(c.payload(), new ChunkItemHeader("android", null));
        ChunkRejection rejection = assertInstanceOf(ChunkOutcome.Rejected.class, outcome,
                () -> c.name() + " was accepted").rejection();
        assertEquals(c.reason(), rejection.reason(), rejection.detail());
        assertTrue(rejection.detail().contains(c.detail()), rejection.detail());
    }

    @Test
    void compoundItemWithoutATraceContentTypeIsPlatformNotSupportedWithADetailSayingSo() {
        ChunkOutcome outcome = processor.process(new byte[] {'{', '}', 1, 2},
                new ChunkItemHeader("android", "application/x-perfetto-trace", 2L));
        ChunkRejection rejection = assertInstanceOf(ChunkOutcome.Rejected.class, outcome).rejection();
        assertEquals(PLATFORM_NOT_SUPPORTED, rejection.reason());
        assertTrue(rejection.detail().contains("Perfetto"), rejection.detail());
    }

    @Test
    void expandedSizeOverTheLimitIsExceedSizeLimit() {
        Builder trace = ArtTraces.builder().thread(7, "main").method(0, "A", "a", "()V", "");
        for (int i = 0; i < 2_000; i++) {
            trace.enter(7, 0, i * 10L).exit(7, 0, i * 10L + 5);
        }
        byte[] payload = chunk(trace);
        // 4 000 events of at least 80 bytes each as Relay stores them: over 200 KB from a payload of about 75 KB
        ChunkProcessor small = new ChunkProcessor(200_000);
        ChunkRejection rejection = assertInstanceOf(ChunkOutcome.Rejected.class,
                small.process(payload, new ChunkItemHeader(null, null))).rejection();
        assertTrue(payload.length < 200_000);
        assertEquals(EXCEED_SIZE_LIMIT, rejection.reason(), rejection.detail());
        assertInstanceOf(ChunkOutcome.Accepted.class, processor.process(payload, new ChunkItemHeader(null, null)));
    }

    @Test
    void elapsedTimeOfExactlySixtySixSecondsIsAccepted() {
        accepted(simple().elapsedMicros("66000000"));
    }

    private ProfileChunk accepted(Builder trace) {
        ChunkOutcome outcome = processor.process(chunk(trace), new ChunkItemHeader("android", null));
        if (outcome instanceof ChunkOutcome.Rejected rejected) {
            throw new AssertionError(rejected.rejection().toString());
        }
        return ((ChunkOutcome.Accepted) outcome).chunk();
    }

    /** Each sample as "thread:offset µs:frame functions leaf first". */
    private static List<String> samples(ProfileChunk chunk) {
        List<String> out = new ArrayList<>();
        for (int s = 0; s < chunk.sampleCount(); s++) {
            StringBuilder line = new StringBuilder(chunk.threadId(chunk.sampleThreadIndex(s))).append(':')
                    .append((chunk.sampleTimestampNanos(s) - ORIGIN_NANOS) / 1_000).append(':');
            int stack = chunk.sampleStackId(s);
            for (int d = 0; d < chunk.stackDepth(stack); d++) {
                line.append(d == 0 ? "" : ",").append(chunk.frames().get(chunk.stackFrame(stack, d)).function());
            }
            out.add(line.toString());
        }
        return out;
    }

    @Test
    void batchesBecomeSamplesAndGapsAreFilledAtTheEstimatedInterval() {
        // stack changes at 0, 10, 20 ms and 60 ms: the interval is 10 ms, the 40 ms gap gets 3 more samples
        ProfileChunk chunk = accepted(ArtTraces.builder().elapsedMicros("70000").thread(7, "main")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "").method(2, "C", "c", "()V", "")
                .enter(7, 0, 0).enter(7, 1, 10_000).exit(7, 1, 20_000).enter(7, 2, 20_000).exit(7, 2, 60_000));
        assertEquals(List.of("7:0:a", "7:10000:b,a", "7:20000:c,a", "7:30000:c,a", "7:40000:c,a", "7:50000:c,a",
                "7:60000:a"), samples(chunk));
    }

    @Test
    void lastStackLastsToTheEndOfTheTrace() {
        ProfileChunk chunk = accepted(ArtTraces.builder().elapsedMicros("50000").thread(7, "main")
                .method(0, "A", "a", "()V", "").enter(7, 0, 0).enter(7, 0, 10_000));
        assertEquals(List.of("7:0:a", "7:10000:a,a", "7:20000:a,a", "7:30000:a,a", "7:40000:a,a"), samples(chunk));
    }

    @Test
    void withoutGapsTheSdksHundredAndOneHertzIsUsed() {
        ProfileChunk chunk = accepted(ArtTraces.builder().elapsedMicros("100000").thread(7, "main")
                .method(0, "A", "a", "()V", "").enter(7, 0, 0));
        assertEquals(10, chunk.sampleCount());
        assertEquals(ArtLimits.DEFAULT_INTERVAL_MICROS * 1_000,
                chunk.sampleTimestampNanos(1) - chunk.sampleTimestampNanos(0));
    }

    @Test
    void overflowedTraceStopsAtItsLastRecordInsteadOfTheElapsedTime() {
        ProfileChunk chunk = accepted(ArtTraces.builder().overflow().elapsedMicros("1000000").thread(7, "main")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "")
                .enter(7, 0, 0).enter(7, 1, 10_000).exit(7, 1, 20_000));
        assertEquals(List.of("7:0:a", "7:10000:b,a", "7:20000:a"), samples(chunk));
    }

    @Test
    void methodIdsMissingFromTheTableBecomeUnknownFrames() {
        ProfileChunk chunk = accepted(simple().enter(7, 0x1234, 20_000));
        assertTrue(samples(chunk).contains("7:20000:unknown (id 0x1234),run"), samples(chunk).toString());
        Frame unknown = chunk.frames().stream().filter(f -> f.function().startsWith("unknown")).findFirst().orElseThrow();
        assertNull(unknown.module());
        assertNull(unknown.signature());
    }

    @Test
    void recordsAreOrderedPerThreadOnlySoBlocksFlushedOutOfOrderGiveTheSameSamples() {
        Builder interleaved = ArtTraces.builder().elapsedMicros("30000").thread(1, "main").thread(2, "worker")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "")
                .enter(1, 0, 0).enter(2, 1, 5_000).exit(1, 0, 10_000).enter(1, 1, 10_000).exit(2, 1, 15_000);
        // newer ART flushes per-thread buffers: the worker's block first, then main's
        Builder blocks = ArtTraces.builder().elapsedMicros("30000").thread(1, "main").thread(2, "worker")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "")
                .enter(2, 1, 5_000).exit(2, 1, 15_000).enter(1, 0, 0).exit(1, 0, 10_000).enter(1, 1, 10_000);
        assertEquals(samples(accepted(interleaved)), samples(accepted(blocks)));
    }

    @Test
    void smallPerTraceThreadIdsAreOpaqueAndNamedFromTheThreadTable() {
        ProfileChunk chunk = accepted(ArtTraces.builder().thread(1, "main").thread(2, "RenderThread")
                .method(0, "A", "a", "()V", "").enter(2, 0, 0).enter(1, 0, 100));
        assertEquals("RenderThread", chunk.threadMetadata().get("2").name());
        assertEquals("main", chunk.threadMetadata().get("1").name());
    }

    @Test
    void wallTimeWrappingPastThirtyTwoBitsCountsForward() {
        long nearWrap = (1L << 32) - 5_000;
        ProfileChunk chunk = accepted(ArtTraces.builder().elapsedMicros("60000000").overflow().thread(7, "main")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "")
                .enter(7, 0, nearWrap).enter(7, 1, nearWrap + 10_000));
        assertEquals(List.of("7:" + nearWrap + ":a", "7:" + (nearWrap + 10_000) + ":b,a"), samples(chunk));
    }

    @Test
    void wallTimeGoingBackwardsIsHeldAtThePreviousTime() {
        ProfileChunk chunk = accepted(ArtTraces.builder().elapsedMicros("30000").overflow().thread(7, "main")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "")
                .enter(7, 0, 20_000).enter(7, 1, 10_000));
        assertEquals(List.of("7:20000:b,a"), samples(chunk));
    }

    @Test
    void exitPopsDownToItsMethodAndUnwindActsAsExit() {
        ProfileChunk chunk = accepted(ArtTraces.builder().elapsedMicros("40000").overflow().thread(7, "main")
                .method(0, "A", "a", "()V", "").method(1, "B", "b", "()V", "").method(2, "C", "c", "()V", "")
                .enter(7, 0, 0).enter(7, 1, 0).enter(7, 2, 0)
                .exit(7, 1, 10_000)             // B below the top: C and B leave
                .exit(7, 2, 20_000)             // C is not on the stack: ignored
                .enter(7, 1, 20_000).unwind(7, 1, 30_000).enter(7, 2, 30_000));
        assertEquals(List.of("7:0:c,b,a", "7:10000:a", "7:20000:b,a", "7:30000:c,a"), samples(chunk));
    }

    @Test
    void trailingPartialRecordIsIgnoredAndALargerRecordSizeIsSkipped() {
        Builder wide = ArtTraces.builder().recordSize(18).elapsedMicros("30000").overflow().thread(7, "main")
                .method(0, "A", "a", "()V", "").enter(7, 0, 0).enter(7, 0, 10_000).trailing((byte) 7, (byte) 0, (byte) 1);
        assertEquals(List.of("7:0:a", "7:10000:a,a"), samples(accepted(wide)));
    }

    @Test
    void versionOneAndTwoTracesUseTheirOneTimeField() {
        Builder v1 = ArtTraces.builder().version(1).clock("global").elapsedMicros("30000").overflow()
                .thread(7, "main").method(0, "A", "a", "()V", "").enter(7, 0, 0).enter(7, 0, 10_000);
        Builder v2 = ArtTraces.builder().version(2).clock("wall").elapsedMicros("30000").overflow()
                .thread(300, "main").method(0, "A", "a", "()V", "").enter(300, 0, 0).enter(300, 0, 10_000);
        assertEquals(List.of("7:0:a", "7:10000:a,a"), samples(accepted(v1)));
        assertEquals(List.of("300:0:a", "300:10000:a,a"), samples(accepted(v2)));
    }

    @Test
    void framesCarryClassMethodSourceAndJniSignature() {
        ProfileChunk chunk = accepted(simple());
        Frame b = chunk.frames().stream().filter(f -> "work".equals(f.function())).findFirst().orElseThrow();
        assertEquals(new Frame("work", "com.example.B", "B.java", null, null, null, null, null, null, "(I)Z"), b);
    }
}
