package chunkrelay.chunk;

import java.util.List;
import java.util.Map;

/**
 * A Sample Format V2 chunk as parsed, before normalisation: samples in payload order, possibly
 * referencing stacks or frames that do not exist. Sample stack ids of {@link JsonValues#INDEX_OUT_OF_RANGE}
 * stand for ids too large for any array; likewise frame indices in stacks. Normalisation may take its
 * arrays over (and sort them in place), so a parsed chunk is normalised once and not used afterwards.
 *
 * @param fields            the chunk-level fields
 * @param hasSampledProfile whether the root object has a non-null {@code sampled_profile} (an Android format)
 * @param hasChunkIdAlias   whether the root object has {@code event_id} or {@code profile_id}
 */
record ParsedChunk(
        ChunkFields fields,
        List<Frame> frames,
        int[] stackOffsets,
        int[] stackFrames,
        long[] sampleTimestampNanos,
        int[] sampleStackIds,
        int[] sampleThreadIndices,
        List<String> threadIds,
        Map<String, ThreadMetadata> threadMetadata,
        boolean hasSampledProfile,
        boolean hasChunkIdAlias) {

    /**
     * Whether {@link #routing()} is what the minimal parse reads from the same (UTF-8) payload: not when the root
     * has {@code event_id} or {@code profile_id}, which only the minimal parse reads (as chunk id aliases).
     */
    boolean routable() {
        return !hasChunkIdAlias;
    }

    /** What Relay's minimal parse would have read from the same payload, for its version dispatch. */
    MinimalChunk routing() {
        return new MinimalChunk(fields.platform(), fields.version(), hasSampledProfile);
    }

    int sampleCount() {
        return sampleStackIds.length;
    }

    int stackCount() {
        return stackOffsets.length - 1;
    }
}
