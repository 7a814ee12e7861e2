package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.PerfettoTraces;

import java.nio.charset.StandardCharsets;

/** Runs compound Perfetto items through a {@link ChunkProcessor}, as the envelope hands them over. */
final class PerfettoChunks {
    static final ChunkProcessor PROCESSOR = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    private PerfettoChunks() {
    }

    static ChunkOutcome process(String metadata, byte[] trace) {
        byte[] meta = metadata.getBytes(StandardCharsets.UTF_8);
        return PROCESSOR.process(PerfettoTraces.payload(meta, trace),
                new ChunkItemHeader("android", PerfettoTraces.CONTENT_TYPE, (long) meta.length));
    }

    static ChunkOutcome process(byte[] trace) {
        return process(PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE), trace);
    }

    static ProfileChunk accepted(byte[] trace) {
        ChunkOutcome outcome = process(trace);
        if (outcome instanceof ChunkOutcome.Accepted accepted) {
            return accepted.chunk();
        }
        throw new AssertionError("expected accepted, got " + outcome);
    }

    static ChunkRejection rejected(ChunkOutcome outcome) {
        if (outcome instanceof ChunkOutcome.Rejected rejected) {
            return rejected.rejection();
        }
        throw new AssertionError("expected rejected, got " + outcome);
    }
}
