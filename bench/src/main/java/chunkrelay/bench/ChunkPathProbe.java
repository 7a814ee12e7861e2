package chunkrelay.bench;

import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;

/**
 * Child-JVM entry point of the memory bisection: runs the synthetic 50 MiB chunk through the whole chunk path
 * (parse, normalise, translate, serialise) once; exits 0 when it came through, non-zero otherwise (an
 * OutOfMemoryError included).
 */
public final class ChunkPathProbe {
    private ChunkPathProbe() {
    }

    public static void main(String[] args) {
        BenchChunks.Item item = BenchChunks.item(BenchChunks.SYNTHETIC);
        ChunkOutcome outcome = new chunkrelay.chunk.ChunkProcessor(chunkrelay.chunk.ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES)
                .process(item.payload(), item.header());
        if (!(outcome instanceof ChunkOutcome.Accepted accepted)) {
            System.out.println("rejected: " + outcome);
            System.exit(2);
            return;
        }
        ProfileChunk chunk = accepted.chunk();
        byte[] otlp = new ChunkTranslator("chunk-relay", "bench").translate(chunk, TranslationContext.forProject(1))
                .toByteArray();
        System.out.println(item.payload().length + " bytes of JSON, " + chunk.sampleCount() + " samples, "
                + otlp.length + " bytes of OTLP");
    }
}
