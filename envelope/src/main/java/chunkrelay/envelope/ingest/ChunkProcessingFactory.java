package chunkrelay.envelope.ingest;

import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.translate.ChunkTranslator;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The plain-Java chunk validation and translation, configured from the relay's limits and version. */
@Factory
public class ChunkProcessingFactory {

    @Singleton
    ChunkProcessor chunkProcessor(RelayLimits limits) {
        return new ChunkProcessor(limits.maxChunkBytes());
    }

    @Singleton
    ChunkTranslator chunkTranslator(RelayVersion version) {
        return new ChunkTranslator(RelayVersion.NAME, version.version());
    }
}
