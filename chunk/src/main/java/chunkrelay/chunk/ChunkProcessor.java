package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;

import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * Validates and normalises one {@code profile_chunk} item as Sentry's Relay does
 * ({@code processing::profile_chunks} with {@code relay_profiling}), in the order relay-parity.md
 * section 5 gives. Recent Relay revisions differ on where the item header check sits; this follows the
 * revision that checks it right after the minimal parse, so a mismatch wins over later schema errors:
 * <ol>
 *   <li>a Perfetto item ({@code content_type: application/x-perfetto-trace}, Android 15+ on SDK 8.51.0+): without
 *       {@code platform} {@code profiling_platform_not_supported}; without {@code meta_length}, or with one past the
 *       payload, {@code profiling_invalid_sampled_profile}; its JSON metadata (the first {@code meta_length} bytes)
 *       unreadable {@code profiling_invalid_json}; then {@link PerfettoChunk} (metadata and trace);</li>
 *   <li>a JSON item with {@code meta_length}: {@code profiling_invalid_sampled_profile};</li>
 *   <li>minimal parse (chunk id, {@code platform}, {@code release}, {@code version},
 *       {@code sampled_profile}) fails: {@code profiling_invalid_json};</li>
 *   <li>the item header's {@code platform}, when present, differs from the payload's:
 *       {@code profiling_invalid_profile_type};</li>
 *   <li>version dispatch (Relay PR #6183): Android trace chunks (platform {@code android}, version "2" or
 *       "2.android-trace", with {@code sampled_profile}) take the ART path ({@link AndroidTraceChunk}: JSON
 *       fields, base64, trace, events, elapsed time, expanded size); every other version "2" chunk, Android ANR
 *       chunks included, takes the V2 path; any other version, or none, is
 *       {@code profiling_platform_not_supported};</li>
 *   <li>V2 path: full Sample Format V2 parse fails: {@code profiling_invalid_json};</li>
 *   <li>V2 path: normalisation ({@link ChunkNormaliser});</li>
 *   <li>the chunk is larger than the limit: {@code profiling_exceed_size_limit}.</li>
 * </ol>
 * Whatever the bytes, the answer is an outcome; no exception escapes {@link #process}.
 */
public final class ChunkProcessor {
    /** Relay's default {@code max_profile_size}: 50 MiB. */
    public static final long DEFAULT_MAX_CHUNK_BYTES = 50L * 1024 * 1024;
    /** serde_json's recursion limit: 128 levels, of which 127 containers may nest. */
    static final int MAX_NESTING_DEPTH = 127;

    private final long maxChunkBytes;
    private final JsonFactory json;
    private final LongAdder jsonReads = new LongAdder();

    public ChunkProcessor(long maxChunkBytes) {
        if (maxChunkBytes <= 0) {
            throw new IllegalArgumentException("maxChunkBytes must be positive");
        }
        this.maxChunkBytes = maxChunkBytes;
        // serde_json has no limits on string, name and document length, only on nesting
        this.json = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING_DEPTH)
                        .maxStringLength(Integer.MAX_VALUE)
                        .maxNameLength(Integer.MAX_VALUE)
                        .maxNumberLength(100_000)
                        .build())
                .disable(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW)
                // correctly rounded, like Double.parseDouble, and several times faster on measurements
                .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
                .build();
    }

    public long maxChunkBytes() {
        return maxChunkBytes;
    }

    /**
     * How many times a parser has read a payload's JSON (minimal, Sample Format V2, Android or Perfetto metadata
     * parse): once per chunk on the common path, which the relay's metrics show and a test holds it to.
     */
    public long jsonReads() {
        return jsonReads.sum();
    }

    /**
     * Validates and normalises one chunk payload; never throws for any payload or header. An exception no rule
     * anticipated is {@link ChunkOutcome.Failed}, not a rejection: it is the relay's bug, not the client's input.
     */
    public ChunkOutcome process(byte[] payload, ChunkItemHeader header) {
        try {
            return processOrReject(payload, header);
        } catch (ChunkRejectedException e) {
            return new ChunkOutcome.Rejected(e.rejection());
        } catch (RuntimeException | StackOverflowError e) {
            return new ChunkOutcome.Failed(e);
        }
    }

    private ChunkOutcome.Accepted processOrReject(byte[] payloadOrNull, ChunkItemHeader headerOrNull)
            throws ChunkRejectedException {
        byte[] payload = payloadOrNull == null ? new byte[0] : payloadOrNull;
        ChunkItemHeader header = headerOrNull == null ? new ChunkItemHeader(null, null) : headerOrNull;
        if (isPerfetto(header.contentType())) {
            return perfetto(payload, header);
        }
        if (header.hasMetaLength()) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_SAMPLED_PROFILE,
                    "meta_length is only valid on Perfetto chunk items, this one is JSON");
        }

        // Whatever the full parse reads, the minimal parse reads too, with the same platform, version and
        // sampled_profile (given UTF-8 without a BOM and no chunk id alias, which only the minimal parse reads);
        // so such a chunk is read once and routed on the full parse. Any other payload is read again in Relay's
        // order, so that it gets Relay's reason.
        ParsedChunk parsed = MinimalChunk.isUtf8WithoutBom(payload) ? parseOrNull(payload) : null;
        MinimalChunk minimal = parsed != null && parsed.routable()
                ? parsed.routing()
                : readJson(() -> MinimalChunk.parse(json, payload));
        if (header.platform() != null && !header.platform().equals(minimal.platform())) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_PROFILE_TYPE,
                    "item header platform \"" + JsonValues.abbreviate(header.platform())
                            + "\" differs from the chunk's platform \"" + JsonValues.abbreviate(minimal.platform()) + "\"");
        }
        ChunkOutcome.Accepted accepted;
        if (isAndroidTrace(minimal)) {
            ParsedAndroidChunk android = readJson(() -> new SampleV2Parser(json).parseAndroid(payload));
            ProfileChunk chunk = AndroidTraceChunk.convert(android, payload.length, maxChunkBytes);
            accepted = new ChunkOutcome.Accepted(chunk, SampleCounts.noneDropped(chunk.sampleCount()));
        } else {
            requireVersion2(minimal);
            if (parsed == null) {
                parsed = readJson(() -> new SampleV2Parser(json).parse(payload));
            }
            accepted = ChunkNormaliser.normalise(parsed);
        }

        // Relay measures its re-serialised chunk; the payload it came from stands in for it here
        if (payload.length > maxChunkBytes) {
            throw new ChunkRejectedException(ChunkRejectionReason.EXCEED_SIZE_LIMIT,
                    "chunk of " + payload.length + " bytes exceeds the limit of " + maxChunkBytes + " bytes");
        }
        return accepted;
    }

    /** A compound Perfetto item: JSON metadata of {@code meta_length} bytes, then the trace. */
    private ChunkOutcome.Accepted perfetto(byte[] payload, ChunkItemHeader header) throws ChunkRejectedException {
        if (header.platform() == null) {
            throw new ChunkRejectedException(ChunkRejectionReason.PLATFORM_NOT_SUPPORTED,
                    "a Perfetto chunk item needs the item header's platform");
        }
        if (!header.hasMetaLength()) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_SAMPLED_PROFILE,
                    "a Perfetto chunk item needs meta_length to split its JSON metadata from the trace");
        }
        long metaLength = header.metaLength();
        if (metaLength < 0 || metaLength > payload.length) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_SAMPLED_PROFILE, "meta_length " + metaLength
                    + " is past the end of the " + payload.length + "-byte payload");
        }
        ParsedPerfettoMetadata metadata =
                readJson(() -> new SampleV2Parser(json).parsePerfettoMetadata(payload, (int) metaLength));
        ProfileChunk chunk = PerfettoChunk.convert(metadata, payload, (int) metaLength, header.platform());
        if (payload.length > maxChunkBytes) {
            throw new ChunkRejectedException(ChunkRejectionReason.EXCEED_SIZE_LIMIT,
                    "chunk of " + payload.length + " bytes exceeds the limit of " + maxChunkBytes + " bytes");
        }
        return new ChunkOutcome.Accepted(chunk, SampleCounts.noneDropped(chunk.sampleCount()));
    }

    private ParsedChunk parseOrNull(byte[] payload) {
        jsonReads.increment();
        try {
            return new SampleV2Parser(json).parse(payload);
        } catch (IOException | ChunkSchemaException | RuntimeException refused) {
            // read again in Relay's order, which gives the payload its reason (or fails the same way)
            return null;
        }
    }

    /** Relay's route to the Android chunk parser: platform android, version "2" or "2.android-trace", a trace. */
    private static boolean isAndroidTrace(MinimalChunk minimal) {
        String version = minimal.version();
        return minimal.platform().equals("android") && minimal.hasSampledProfile()
                && (MinimalChunk.VERSION_2.equals(version) || MinimalChunk.VERSION_2_ANDROID_TRACE.equals(version));
    }

    private static void requireVersion2(MinimalChunk minimal) throws ChunkRejectedException {
        String version = minimal.version();
        if (MinimalChunk.VERSION_2.equals(version)) {
            return;
        }
        boolean android = minimal.platform().equals("android");
        String detail;
        if (version == null) {
            detail = android
                    ? "Android chunk without version: only ART trace chunks (sampled_profile, version \"2\") and "
                    + "Sample Format V2 chunks are supported"
                    : "chunk without version: only Sample Format V2 (version \"2\") is supported";
        } else if (version.equals(MinimalChunk.VERSION_2_ANDROID_TRACE)) {
            detail = "version 2.android-trace without sampled_profile" + (android
                    ? ": Relay's decoded Android trace output is not an ingestible chunk" : "");
        } else {
            detail = "version " + version + " is the transaction profile format, not a continuous-profiling chunk";
        }
        throw new ChunkRejectedException(ChunkRejectionReason.PLATFORM_NOT_SUPPORTED, detail);
    }

    private static boolean isPerfetto(String contentType) {
        if (contentType == null) {
            return false;
        }
        int parameters = contentType.indexOf(';');
        String mediaType = parameters < 0 ? contentType : contentType.substring(0, parameters);
        return mediaType.trim().toLowerCase(Locale.ROOT).equals(ChunkItemHeader.PERFETTO_CONTENT_TYPE);
    }

    private interface JsonRead<T> {
        T read() throws IOException, ChunkSchemaException;
    }

    /** Runs one parse; a syntax or schema error is {@code profiling_invalid_json} with what and where. */
    private <T> T readJson(JsonRead<T> read) throws ChunkRejectedException {
        jsonReads.increment();
        try {
            return read.read();
        } catch (ChunkSchemaException e) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_JSON, e.getMessage());
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_JSON,
                    "not valid JSON" + where + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_JSON, "unreadable chunk: " + e.getMessage());
        }
    }
}
