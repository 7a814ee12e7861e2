package chunkrelay.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The floor the relay's CPU per chunk is measured against, in this JVM: the value-decoding Jackson pass
 * ({@link JacksonValuePass}) over the chunks' JSON, with the token pass ({@link JacksonTokenPass}) and the archive
 * floor ({@link ArchiveFloorPass}: the body inflated, the values decoded, the JSON compressed) beside it. Each is
 * warmed until the JIT compilers are done with it (after 60 passes the value pass still varied from 5.4 to 8.5 ms
 * per Java chunk; after 6 s and 300 passes within 5%), then both are taken in turns and timed in CPU time of this
 * thread, so that other processes on the machine cannot skew them: the median per chunk over the rounds.
 */
final class ReadingFloor {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    private static final long MIN_WARM_UP_NANOS = 6_000_000_000L;
    private static final int MIN_WARM_UP_PASSES = 300;
    /** Warm-up goes on in slices of this much CPU until a slice adds under {@link #SETTLED_JIT_MILLIS} of compiling. */
    private static final long SLICE_NANOS = 1_000_000_000L;
    private static final long SETTLED_JIT_MILLIS = 5;
    private static final int MAX_SLICES = 30;
    private static final int ROUNDS = 11;
    private static volatile long sink;

    /** Per chunk: CPU microseconds of each pass, bytes of JSON, and how long the warm-up took. */
    record Floor(double valuePassMicros, double tokenPassMicros, double archivePassMicros, double jsonBytes,
                 double warmUpSeconds) {
    }

    private ReadingFloor() {
    }

    static Floor of(List<byte[]> chunks) {
        List<byte[]> gzipped = chunks.stream().map(Gzip::of).toList();
        long started = System.nanoTime();
        long passes = 0;
        while (passes < MIN_WARM_UP_PASSES || System.nanoTime() - started < MIN_WARM_UP_NANOS) {
            sliceMicros(chunks, JacksonValuePass::values, SLICE_NANOS / 10);
            sliceMicros(chunks, JacksonTokenPass::tokens, SLICE_NANOS / 10);
            sliceMicros(gzipped, ArchiveFloorPass::archive, SLICE_NANOS / 10);
            passes += 3L * chunks.size();
        }
        for (int slice = 0; slice < MAX_SLICES; slice++) {
            long compiled = JIT.getTotalCompilationTime();
            sliceMicros(chunks, JacksonValuePass::values, SLICE_NANOS / 2);
            sliceMicros(chunks, JacksonTokenPass::tokens, SLICE_NANOS / 2);
            sliceMicros(gzipped, ArchiveFloorPass::archive, SLICE_NANOS / 2);
            if (JIT.getTotalCompilationTime() - compiled < SETTLED_JIT_MILLIS) {
                break;
            }
        }
        double warmUp = (System.nanoTime() - started) / 1e9;
        double[] values = new double[ROUNDS];
        double[] tokens = new double[ROUNDS];
        double[] archives = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            values[round] = sliceMicros(chunks, JacksonValuePass::values, SLICE_NANOS / 4);
            tokens[round] = sliceMicros(chunks, JacksonTokenPass::tokens, SLICE_NANOS / 4);
            archives[round] = sliceMicros(gzipped, ArchiveFloorPass::archive, SLICE_NANOS / 4);
        }
        double json = chunks.stream().mapToInt(c -> c.length).average().orElse(0);
        return new Floor(Medians.of(values), Medians.of(tokens), Medians.of(archives), json, warmUp);
    }

    /** Runs the pass over the chunks in turn for about {@code cpuNanos} of this thread's CPU; microseconds a chunk. */
    private static double sliceMicros(List<byte[]> chunks, ToLongFunction<byte[]> pass, long cpuNanos) {
        long start = THREADS.getCurrentThreadCpuTime();
        long calls = 0;
        long now;
        do {
            sink += pass.applyAsLong(chunks.get((int) (calls % chunks.size())));
            calls++;
            now = THREADS.getCurrentThreadCpuTime();
        } while (now - start < cpuNanos);
        return (now - start) / 1e3 / calls;
    }
}
