package chunkrelay.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * A second opinion on the JMH figures that other processes on a shared machine cannot skew: the same five
 * operations of {@link ChunkPathBenchmark}, taken in turns (floor, stages, floor, ...) for several rounds and
 * timed in CPU time of the measuring thread, so time spent waiting for a core counts for nothing. The first
 * round warms up; the median of the others is kept. GC and JIT threads are not counted.
 */
final class InterleavedCpuTime {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static volatile Object sink;

    private InterleavedCpuTime() {
    }

    /** CPU microseconds per operation, by benchmark method name, for one chunk. */
    static Map<String, Double> measure(String chunk, int rounds, long sliceMillis) throws Exception {
        ChunkPathBenchmark benchmark = new ChunkPathBenchmark();
        benchmark.chunk = chunk;
        benchmark.setUp();
        Map<String, Callable<Object>> operations = new LinkedHashMap<>();
        operations.put("jacksonTokenPass", benchmark::jacksonTokenPass);
        operations.put("parseAndNormalise", benchmark::parseAndNormalise);
        operations.put("translate", benchmark::translate);
        operations.put("protobufSerialise", benchmark::protobufSerialise);
        operations.put("wholeChunkPath", benchmark::wholeChunkPath);
        Map<String, double[]> perRound = new LinkedHashMap<>();
        operations.keySet().forEach(name -> perRound.put(name, new double[rounds - 1]));
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, Callable<Object>> operation : operations.entrySet()) {
                double micros = slice(operation.getValue(), sliceMillis);
                if (round > 0) {
                    perRound.get(operation.getKey())[round - 1] = micros;
                }
            }
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        perRound.forEach((name, values) -> {
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            medians.put(name, sorted[sorted.length / 2]);
        });
        return medians;
    }

    /** Runs the operation for at least one call and about {@code millis} of CPU time; CPU microseconds per call. */
    private static double slice(Callable<Object> operation, long millis) throws Exception {
        long start = THREADS.getCurrentThreadCpuTime();
        long until = start + millis * 1_000_000;
        long calls = 0;
        long now;
        do {
            sink = operation.call();
            calls++;
            now = THREADS.getCurrentThreadCpuTime();
        } while (now < until);
        return (now - start) / 1e3 / calls;
    }
}
