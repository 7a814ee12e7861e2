package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.storage.ArchiveEntry;

import java.util.HashMap;
import java.util.Map;

/**
 * The user metadata both archived forms of a chunk carry: platform, release, environment, sample count, first and
 * last sample time, relay version.
 */
final class ArchivedMetadata {
    private ArchivedMetadata() {
    }

    static Map<String, String> of(ProfileChunk chunk, RelayVersion version) {
        Map<String, String> metadata = new HashMap<>();
        metadata.put(ArchiveEntry.PLATFORM, chunk.platform());
        if (chunk.release() != null) {
            metadata.put(ArchiveEntry.RELEASE, chunk.release());
        }
        if (chunk.environment() != null) {
            metadata.put(ArchiveEntry.ENVIRONMENT, chunk.environment());
        }
        metadata.put(ArchiveEntry.SAMPLE_COUNT, Integer.toString(chunk.sampleCount()));
        if (chunk.sampleCount() > 0) {
            metadata.put(ArchiveEntry.FIRST_SAMPLE_NS, Long.toString(chunk.firstSampleNanos()));
            metadata.put(ArchiveEntry.LAST_SAMPLE_NS, Long.toString(chunk.lastSampleNanos()));
        }
        metadata.put(ArchiveEntry.RELAY_VERSION, version.version());
        return metadata;
    }
}
