package chunkrelay.envelope.archive;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.storage.ChunkMetadata;

import java.util.HashMap;
import java.util.Map;

/**
 * The user metadata both archived forms of a chunk carry: platform, release, environment, sample count, first and
 * last sample time, relay version; and, for a compound (Perfetto) chunk, the item's {@code meta_length}, without
 * which its Sentry form cannot be read again. Public for the benchmark, which writes what the relay writes.
 */
public final class ArchivedMetadata {
    private ArchivedMetadata() {
    }

    public static Map<String, String> of(ProfileChunk chunk, RelayVersion version, ChunkItemHeader header) {
        Map<String, String> metadata = of(chunk, version);
        if (header.metaLength() != null) {
            metadata.put(ChunkMetadata.META_LENGTH, Long.toString(header.metaLength()));
        }
        return metadata;
    }

    /** The item header a chunk archived with this metadata was sent with, as far as reading it again needs. */
    public static ChunkItemHeader itemHeader(Map<String, String> metadata) {
        String metaLength = metadata.get(ChunkMetadata.META_LENGTH);
        if (metaLength == null) {
            return new ChunkItemHeader(null, null);
        }
        return new ChunkItemHeader(metadata.get(ChunkMetadata.PLATFORM), ChunkItemHeader.PERFETTO_CONTENT_TYPE,
                Long.parseLong(metaLength));
    }

    public static Map<String, String> of(ProfileChunk chunk, RelayVersion version) {
        Map<String, String> metadata = new HashMap<>();
        metadata.put(ChunkMetadata.PLATFORM, chunk.platform());
        if (chunk.release() != null) {
            metadata.put(ChunkMetadata.RELEASE, chunk.release());
        }
        if (chunk.environment() != null) {
            metadata.put(ChunkMetadata.ENVIRONMENT, chunk.environment());
        }
        metadata.put(ChunkMetadata.SAMPLE_COUNT, Integer.toString(chunk.sampleCount()));
        if (chunk.sampleCount() > 0) {
            metadata.put(ChunkMetadata.FIRST_SAMPLE_NS, Long.toString(chunk.firstSampleNanos()));
            metadata.put(ChunkMetadata.LAST_SAMPLE_NS, Long.toString(chunk.lastSampleNanos()));
        }
        metadata.put(ChunkMetadata.RELAY_VERSION, version.version());
        return metadata;
    }
}
