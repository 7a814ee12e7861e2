package chunkrelay.chunk;

import chunkrelay.chunk.perfetto.PerfettoProfile;
import chunkrelay.chunk.perfetto.PerfettoTraceConverter;
import chunkrelay.chunk.perfetto.PerfettoTraceException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns an Android Perfetto chunk (a compound item: JSON metadata, then the raw trace from {@code meta_length} on)
 * into a {@link ProfileChunk}, with Relay's checks in its order:
 * <ol>
 *   <li>the metadata's {@code content_type} is {@code "perfetto"} (Relay's fixture) or
 *       {@code "application/x-perfetto-trace"} (what the released SDK writes): else
 *       {@code profiling_platform_not_supported};</li>
 *   <li>{@code chunk_id}, {@code profiler_id}, {@code platform} and {@code client_sdk} are present: else
 *       {@code profiling_invalid_json};</li>
 *   <li>the item header's platform matches the metadata's: else {@code profiling_invalid_profile_type};</li>
 *   <li>the trace converts ({@link PerfettoTraceConverter}): malformed or without a usable clock snapshot
 *       {@code profiling_invalid_sampled_profile}, past Relay's limits {@code profiling_exceed_size_limit}, without
 *       samples {@code profiling_not_enough_samples}.</li>
 * </ol>
 * The chunk's debug images are the metadata's followed by the trace's native mappings. Samples are sorted by time;
 * as on the ART path no V2 normalisation runs (Relay runs none on converted Perfetto chunks), so threads with a single
 * sample stay.
 */
final class PerfettoChunk {
    static final Set<String> CONTENT_TYPES = Set.of("perfetto", ChunkItemHeader.PERFETTO_CONTENT_TYPE);

    private PerfettoChunk() {
    }

    static ProfileChunk convert(ParsedPerfettoMetadata metadata, byte[] payload, int metaLength, String headerPlatform)
            throws ChunkRejectedException {
        if (metadata.contentType() == null || !CONTENT_TYPES.contains(metadata.contentType())) {
            throw new ChunkRejectedException(ChunkRejectionReason.PLATFORM_NOT_SUPPORTED, metadata.contentType() == null
                    ? "the compound item's metadata has no content_type naming a Perfetto trace"
                    : "the compound item's trace is \"" + JsonValues.abbreviate(metadata.contentType())
                    + "\": only Perfetto traces (\"perfetto\", \"" + ChunkItemHeader.PERFETTO_CONTENT_TYPE
                    + "\") are supported");
        }
        if (metadata.missingField() != null) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_JSON, metadata.missingField());
        }
        ChunkFields fields = metadata.fields();
        if (!headerPlatform.equals(fields.platform())) {
            throw new ChunkRejectedException(ChunkRejectionReason.INVALID_PROFILE_TYPE,
                    "item header platform \"" + JsonValues.abbreviate(headerPlatform)
                            + "\" differs from the chunk's platform \"" + JsonValues.abbreviate(fields.platform()) + "\"");
        }
        PerfettoProfile profile;
        try {
            profile = PerfettoTraceConverter.convert(payload, metaLength, payload.length - metaLength);
        } catch (PerfettoTraceException e) {
            ChunkRejectionReason reason = switch (e.kind()) {
                case INVALID -> ChunkRejectionReason.INVALID_SAMPLED_PROFILE;
                case TOO_LARGE -> ChunkRejectionReason.EXCEED_SIZE_LIMIT;
                case NO_SAMPLES -> ChunkRejectionReason.NOT_ENOUGH_SAMPLES;
            };
            throw new ChunkRejectedException(reason, "Perfetto trace: " + e.getMessage());
        }
        long[] times = profile.sampleNanos();
        int[] stacks = profile.sampleStacks();
        int[] threads = profile.sampleThreads();
        SampleOrder.stableSortByTime(times, stacks, threads, times.length);
        List<DebugImage> images = new ArrayList<>(fields.debugImages());
        images.addAll(profile.debugImages());
        return new ProfileChunk(fields.chunkId(), fields.profilerId(), fields.platform(), fields.release(),
                fields.environment(), fields.clientSdk(), fields.version(), profile.frames(),
                profile.stackOffsets(), profile.stackFrames(), times, stacks, threads, profile.threadIds(),
                profile.threadMetadata(), images, fields.measurements(), SampledTime.CPU);
    }
}
