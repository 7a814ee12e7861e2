package chunkrelay.chunk;

import chunkrelay.chunk.art.ArtMethod;
import chunkrelay.chunk.art.ArtSampleReplay;
import chunkrelay.chunk.art.ArtSamples;
import chunkrelay.chunk.art.ArtTrace;
import chunkrelay.chunk.art.ArtTraceException;
import chunkrelay.chunk.art.ArtTraceParser;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Validates an Android ART trace chunk as Relay does ({@code relay_profiling::android::chunk}) and turns it into the
 * same {@link ProfileChunk} a Sample Format V2 chunk becomes. In Relay's order:
 * <ol>
 *   <li>{@code sampled_profile} is strict unpadded base64 ({@code BASE64_NOPAD}: no {@code =}, no whitespace, zero
 *       trailing bits): else {@code profiling_invalid_base64_value};</li>
 *   <li>the trace parses ({@link ArtTraceParser}): else {@code profiling_invalid_sampled_profile};</li>
 *   <li>it has events: else {@code profiling_not_enough_samples};</li>
 *   <li>the header's {@code elapsed-time-usec} is over 66 s: {@code profiling_duration_is_too_long}; 0:
 *       {@code profiling_duration_is_zero};</li>
 *   <li>Relay's expanded JSON (at least {@link #MIN_EVENT_JSON_BYTES} per event and {@link #MIN_METHOD_JSON_BYTES}
 *       per method) would exceed the chunk limit: {@code profiling_exceed_size_limit}. This also bounds what the
 *       replay may allocate: at 50 MiB, about 650 000 events.</li>
 * </ol>
 * Then the events are replayed into samples ({@link ArtSampleReplay}); sample time = the chunk's {@code timestamp} +
 * the record's offset (the binary header's start time is since boot, not Unix time). One frame per method:
 * {@code function} the method name, {@code module} the class, {@code filename} the source file, {@code signature}
 * the JNI descriptor; a method id missing from the table becomes {@code unknown (id 0x…)}. Thread metadata names
 * come from {@code *threads}. Unlike the V2 path there is no V2 normalisation (Relay runs none on these chunks), so
 * threads with a single sample stay; a trace whose events leave no non-empty stack is
 * {@code profiling_not_enough_samples}, since an OTLP profile needs samples.
 */
final class AndroidTraceChunk {
    /** Relay's MAX_PROFILE_CHUNK_DURATION, compared with the header's elapsed time. */
    static final long MAX_ELAPSED_MICROS = ChunkNormaliser.MAX_CHUNK_DURATION_NANOS / 1_000;
    /**
     * The shortest event Relay writes into its expanded chunk (serde form of {@code android_trace_log::Event}); real
     * events are longer, so the size estimate never refuses what Relay would accept.
     */
    static final int MIN_EVENT_JSON_BYTES =
            "{\"action\":\"Exit\",\"thread_id\":0,\"method_id\":0,\"time\":{\"Global\":{\"secs\":0,\"nanos\":0}}},"
                    .length();
    /** Likewise the shortest method entry of Relay's expanded chunk. */
    static final int MIN_METHOD_JSON_BYTES =
            "{\"id\":0,\"name\":\"\",\"class_name\":\"\",\"signature\":\"\",\"source_file\":\"\"},".length();

    private AndroidTraceChunk() {
    }

    static ProfileChunk convert(ParsedAndroidChunk chunk, long payloadBytes, long maxChunkBytes)
            throws ChunkRejectedException {
        ParsedAndroidChunk.SampledProfileText text = chunk.sampledProfile();
        if (text == null || text.length() == 0) {
            throw new ChunkRejectedException(ChunkRejectionReason.NOT_ENOUGH_SAMPLES,
                    "sampled_profile is empty: the chunk has no trace");
        }
        byte[] traceBytes = decodeBase64(text);
        ArtTrace trace;
        try {
            trace = ArtTraceParser.parse(traceBytes);
        } catch (ArtTraceException e) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_SAMPLED_PROFILE,
                    "sampled_profile is not an ART method trace: " + e.getMessage());
        }
        if (trace.recordCount() == 0) {
            throw new ChunkRejectedException(ChunkRejectionReason.NOT_ENOUGH_SAMPLES, "the trace has no events");
        }
        if (trace.elapsedMicros() > MAX_ELAPSED_MICROS) {
            throw new ChunkRejectedException(ChunkRejectionReason.DURATION_IS_TOO_LONG, "the trace's elapsed-time-usec "
                    + trace.elapsedMicros() + " is more than the 66000000 a chunk may cover");
        }
        if (trace.elapsedMicros() == 0) {
            throw new ChunkRejectedException(ChunkRejectionReason.DURATION_IS_ZERO,
                    "the trace's elapsed-time-usec is 0 (or missing)");
        }
        long expanded = payloadBytes - text.length() + (long) trace.recordCount() * MIN_EVENT_JSON_BYTES
                + (long) trace.methodCount() * MIN_METHOD_JSON_BYTES;
        if (expanded > maxChunkBytes) {
            throw new ChunkRejectedException(ChunkRejectionReason.EXCEED_SIZE_LIMIT, "the chunk with its "
                    + trace.recordCount() + " trace events expanded as Relay stores them is more than " + expanded
                    + " bytes, over the limit of " + maxChunkBytes + " bytes");
        }

        ArtSamples samples;
        try {
            samples = ArtSampleReplay.replay(trace, traceBytes.length);
        } catch (ArtTraceException e) {
            throw new ChunkRejectedException(e.tooLarge() ? ChunkRejectionReason.EXCEED_SIZE_LIMIT
                    : ChunkRejectionReason.INVALID_SAMPLED_PROFILE, e.getMessage());
        }
        if (samples.sampleCount() == 0) {
            throw new ChunkRejectedException(ChunkRejectionReason.NOT_ENOUGH_SAMPLES, "the trace's "
                    + trace.recordCount() + " events leave no thread with a non-empty stack");
        }
        return profileChunk(chunk, trace, samples);
    }

    private static ProfileChunk profileChunk(ParsedAndroidChunk chunk, ArtTrace trace, ArtSamples samples)
            throws ChunkRejectedException {
        List<Frame> frames = new ArrayList<>(samples.frameMethodIds().length);
        for (int methodId : samples.frameMethodIds()) {
            frames.add(frame(trace.method(methodId), methodId));
        }
        String[] threadIds = new String[samples.threadIds().length];
        Map<String, ThreadMetadata> threadMetadata = new TreeMap<>();
        for (int t = 0; t < threadIds.length; t++) {
            threadIds[t] = Integer.toString(samples.threadIds()[t]);
            String name = trace.threadName(samples.threadIds()[t]);
            if (name != null) {
                threadMetadata.put(threadIds[t], new ThreadMetadata(name, null));
            }
        }
        long[] times = samples.sampleMicros();
        int[] stacks = samples.sampleStacks();
        int[] threads = samples.sampleThreads();
        try {
            for (int i = 0; i < times.length; i++) {
                times[i] = Math.addExact(chunk.timestampNanos(), times[i] * 1_000);
            }
        } catch (ArithmeticException overflow) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_JSON,
                    "timestamp plus the trace's offsets is past the times this relay can represent");
        }
        SampleOrder.stableSortByTime(times, stacks, threads, times.length);
        ChunkFields fields = chunk.fields();
        return new ProfileChunk(fields.chunkId(), fields.profilerId(), fields.platform(), fields.release(),
                fields.environment(), fields.clientSdk(), fields.version(), frames, samples.stackOffsets(),
                samples.stackFrames(), times, stacks, threads, threadIds, threadMetadata, fields.debugImages(),
                fields.measurements(), SampledTime.WALL_CLOCK);
    }

    private static Frame frame(ArtMethod method, int methodId) {
        if (method == null) {
            return new Frame("unknown (id 0x" + Integer.toHexString(methodId) + ")", null, null, null, null, null,
                    null, null, null, null);
        }
        Integer line = method.sourceLine() == null || method.sourceLine() > Integer.MAX_VALUE ? null
                : method.sourceLine().intValue();
        return new Frame(method.name(), method.className(),
                method.sourceFile().isEmpty() ? null : method.sourceFile(), null, line, null, null, null, null,
                method.signature());
    }

    /** Relay's {@code BASE64_NOPAD}: the standard alphabet, no padding, no whitespace, canonical trailing bits. */
    private static byte[] decodeBase64(ParsedAndroidChunk.SampledProfileText text) throws ChunkRejectedException {
        byte[] bytes = text.bytes();
        int length = text.length();
        for (int i = text.from(); i < text.to(); i++) {
            byte b = bytes[i];
            boolean alphabet = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')
                    || b == '+' || b == '/';
            if (!alphabet) {
                throw invalidBase64("character " + (b == '=' ? "'=' (padding)" : "0x" + Integer.toHexString(b & 0xFF))
                        + " at offset " + (i - text.from()) + " is not in the unpadded base64 alphabet");
            }
        }
        if (length % 4 == 1) {
            throw invalidBase64("a length of " + length + " characters cannot end a base64 text");
        }
        int last = Base64Alphabet.value(bytes[text.to() - 1]);
        int unusedBits = switch (length % 4) {
            case 2 -> 4;
            case 3 -> 2;
            default -> 0;
        };
        if ((last & ((1 << unusedBits) - 1)) != 0) {
            throw invalidBase64("the last character carries non-zero trailing bits");
        }
        ByteBuffer decoded = Base64.getDecoder().decode(ByteBuffer.wrap(bytes, text.from(), length));
        if (decoded.hasArray() && decoded.arrayOffset() == 0 && decoded.remaining() == decoded.array().length) {
            return decoded.array();
        }
        byte[] copy = new byte[decoded.remaining()];
        decoded.get(copy);
        return copy;
    }

    private static ChunkRejectedException invalidBase64(String detail) {
        return new ChunkRejectedException(ChunkRejectionReason.INVALID_BASE64_VALUE, "sampled_profile: " + detail);
    }

    /** The 6-bit value of a character of the standard base64 alphabet (already checked). */
    private static final class Base64Alphabet {
        private Base64Alphabet() {
        }

        static int value(byte b) {
            if (b >= 'A' && b <= 'Z') {
                return b - 'A';
            }
            if (b >= 'a' && b <= 'z') {
                return b - 'a' + 26;
            }
            if (b >= '0' && b <= '9') {
                return b - '0' + 52;
            }
            return b == '+' ? 62 : 63;
        }
    }
}
