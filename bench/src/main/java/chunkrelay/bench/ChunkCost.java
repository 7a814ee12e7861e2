package chunkrelay.bench;

import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;

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
                sink += path(processor, translator, context, chunk) + JacksonTokenPass.tokens(chunk.payload());
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
                sink += JacksonTokenPass.tokens(chunk.payload());
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

    private static long path(ChunkProcessor processor, ChunkTranslator translator, TranslationContext context,
                             RecordedChunk chunk) {
        ChunkOutcome outcome = processor.process(chunk.payload(), BenchChunks.header(chunk));
        if (!(outcome instanceof ChunkOutcome.Accepted accepted)) {
            throw new IllegalStateException(chunk.request() + " was rejected: " + outcome);
        }
        return translator.translate(accepted.chunk(), context).toByteArray().length;
    }
}
