package chunkrelay.chunk;

import java.util.List;
import java.util.Map;

/**
 * The chunk-level fields every chunk format carries in its JSON, as parsed: a V2 chunk ({@link ParsedChunk}), an ART
 * trace chunk ({@link ParsedAndroidChunk}) and a Perfetto chunk's metadata ({@link ParsedPerfettoMetadata}) each hold
 * them once, and each becomes a {@link ProfileChunk} with them.
 */
record ChunkFields(
        SentryUuid chunkId,
        SentryUuid profilerId,
        String platform,
        String release,
        String environment,
        ClientSdk clientSdk,
        String version,
        List<DebugImage> debugImages,
        Map<String, Measurement> measurements) {
}
