package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * What the chunk path alone costs for the chunks of some recorded requests, in this JVM: CPU time of the calling
 * thread and bytes it allocated per chunk (parse, normalise, translate, serialise), averaged over the chunks. The
 * floor the relay's whole cost per chunk is compared with.
 */
final class ChunkCost {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final JsonFactory JSON = JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
            .maxStringLength(Integer.MAX_VALUE).build()).build();

    /**
     * Per chunk: CPU microseconds of the chunk path, bytes it allocated, bytes of chunk JSON, and CPU microseconds of
     * a bare Jackson token pass over the same JSON (every token, nothing kept), taken in turns with the path.
     */
    record PerChunk(double cpuMicros, double allocatedBytes, double jsonBytes, double tokenPassCpuMicros) {
        double allocationPerJsonByte() {
            return allocatedBytes / jsonBytes;
        }
    }

    private ChunkCost() {
    }

    /**
     * @param warmUpRounds rounds over the chunks before measuring: enough for the JIT's optimising compiler to take
     *                     the path (the relay is measured warm too)
     * @param rounds       rounds measured
     */
    static PerChunk of(List<String> requestNames, int warmUpRounds, int rounds) {
        List<RecordedChunk> chunks = Fixtures.sdkChunks().stream()
                .filter(c -> requestNames.contains(c.request())).toList();
        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
        TranslationContext context = TranslationContext.forProject(1);
        long sink = 0;
        for (int warmup = 0; warmup < warmUpRounds; warmup++) {
            for (RecordedChunk chunk : chunks) {
                sink += path(processor, translator, context, chunk) + tokenPass(chunk.payload());
            }
        }
        long thread = Thread.currentThread().getId();
        long cpu = 0;
        long tokenPassCpu = 0;
        long allocated = 0;
        long json = 0;
        for (int round = 0; round < rounds; round++) {
            for (RecordedChunk chunk : chunks) {
                long cpuBefore = THREADS.getCurrentThreadCpuTime();
                long allocatedBefore = THREADS.getThreadAllocatedBytes(thread);
                sink += path(processor, translator, context, chunk);
                long between = THREADS.getCurrentThreadCpuTime();
                allocated += THREADS.getThreadAllocatedBytes(thread) - allocatedBefore;
                sink += tokenPass(chunk.payload());
                cpu += between - cpuBefore;
                tokenPassCpu += THREADS.getCurrentThreadCpuTime() - between;
                json += chunk.payload().length;
            }
        }
        if (sink == 42) {
            System.out.print("");
        }
        double n = (double) rounds * chunks.size();
        return new PerChunk(cpu / 1e3 / n, allocated / n, json / n, tokenPassCpu / 1e3 / n);
    }

    /** The floor: every token of the chunk's JSON read once, nothing kept, with the relay's string limits. */
    private static long tokenPass(byte[] json) {
        long tokens = 0;
        try (JsonParser parser = JSON.createParser(json)) {
            while (parser.nextToken() != null) {
                tokens++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tokens;
    }

    private static long path(ChunkProcessor processor, ChunkTranslator translator, TranslationContext context,
                             RecordedChunk chunk) {
        String platform = chunk.itemHeader().hasNonNull("platform") ? chunk.itemHeader().get("platform").asText()
                : null;
        ChunkOutcome outcome = processor.process(chunk.payload(), new ChunkItemHeader(platform, null));
        if (!(outcome instanceof ChunkOutcome.Accepted accepted)) {
            throw new IllegalStateException(chunk.request() + " was rejected: " + outcome);
        }
        return translator.translate(accepted.chunk(), context).toByteArray().length;
    }
}
