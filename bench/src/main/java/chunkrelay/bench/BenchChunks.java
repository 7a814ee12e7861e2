package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;

/** The chunks the benchmarks run over: three real SDK chunks and the synthetic 50 MiB one. */
final class BenchChunks {
    static final String NODE = "node";
    static final String JAVA = "java";
    static final String PYTHON = "python";
    static final String SYNTHETIC = "synthetic-50MiB";
    /** Just under Relay's 50 MiB chunk limit, so the chunk is accepted. */
    static final int SYNTHETIC_BYTES = 50 * 1024 * 1024 - 1024;

    /** One chunk item: its payload and the item header the SDK sent with it. */
    record Item(String name, String source, byte[] payload, ChunkItemHeader header) {
        ProfileChunk normalise() {
            ChunkOutcome outcome = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES).process(payload, header);
            if (outcome instanceof ChunkOutcome.Accepted accepted) {
                return accepted.chunk();
            }
            throw new IllegalStateException(name + " was rejected: " + outcome);
        }
    }

    private BenchChunks() {
    }

    static Item item(String name) {
        return switch (name) {
            case NODE -> recorded(NODE, "node-11.1.0-long/001");
            case JAVA -> recorded(JAVA, "java-8.43.0/001");
            case PYTHON -> recorded(PYTHON, "python-2.75.0/002");
            case SYNTHETIC -> new Item(SYNTHETIC, "generated", SyntheticChunk.ofSize(SYNTHETIC_BYTES),
                    new ChunkItemHeader("python", null));
            default -> throw new IllegalArgumentException("no benchmark chunk " + name);
        };
    }

    private static Item recorded(String name, String request) {
        for (RecordedChunk chunk : Fixtures.sdkChunks()) {
            if (chunk.request().equals(request)) {
                return new Item(name, request, chunk.payload(), header(chunk));
            }
        }
        throw new IllegalArgumentException("no profile_chunk in " + request);
    }

    /** The item header a recorded chunk was sent with, as the relay reads it. */
    static ChunkItemHeader header(RecordedChunk chunk) {
        String platform = chunk.itemHeader().hasNonNull("platform") ? chunk.itemHeader().get("platform").asText() : null;
        String contentType = chunk.itemHeader().hasNonNull("content_type")
                ? chunk.itemHeader().get("content_type").asText() : null;
        Long metaLength = chunk.itemHeader().has("meta_length") ? chunk.itemHeader().get("meta_length").asLong() : null;
        return new ChunkItemHeader(platform, contentType, metaLength);
    }
}
