package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.storage.ArchiveEntry;

import java.util.HashMap;
import java.util.Map;

/**
 * The user metadata both archived forms of a chunk carry: platform, release, sample count, first and last sample
 * time, relay version.
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
        metadata.put(ArchiveEntry.SAMPLE_COUNT, Integer.toString(chunk.sampleCount()));
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int s = 0; s < chunk.sampleCount(); s++) {
            first = Math.min(first, chunk.sampleTimestampNanos(s));
            last = Math.max(last, chunk.sampleTimestampNanos(s));
        }
        if (chunk.sampleCount() > 0) {
            metadata.put(ArchiveEntry.FIRST_SAMPLE_NS, Long.toString(first));
            metadata.put(ArchiveEntry.LAST_SAMPLE_NS, Long.toString(last));
        }
        metadata.put(ArchiveEntry.RELAY_VERSION, version.version());
        return metadata;
    }
}
