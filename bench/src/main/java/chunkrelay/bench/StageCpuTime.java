package chunkrelay.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * CPU time of the calling thread per call of each stage, taken in turns so that the machine's load falls on every
 * stage alike: warm-up rounds first, then the median over rounds of the mean of a few calls. A stage returns a
 * number the measure keeps, so that the JIT cannot drop its work.
 */
final class StageCpuTime {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private StageCpuTime() {
    }

    /** Microseconds per call of each stage, in the stages' order. */
    static Map<String, Double> medianMicros(Map<String, IntSupplier> stages, int warmUpRounds, int rounds,
                                            int callsPerRound) {
        long sink = 0;
        for (int round = 0; round < warmUpRounds; round++) {
            for (IntSupplier stage : stages.values()) {
                sink += stage.getAsInt();
            }
        }
        Map<String, double[]> perRound = new LinkedHashMap<>();
        stages.keySet().forEach(name -> perRound.put(name, new double[rounds]));
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, IntSupplier> stage : stages.entrySet()) {
                long start = THREADS.getCurrentThreadCpuTime();
                for (int call = 0; call < callsPerRound; call++) {
                    sink += stage.getValue().getAsInt();
                }
                perRound.get(stage.getKey())[round] = (THREADS.getCurrentThreadCpuTime() - start) / 1e3
                        / callsPerRound;
            }
        }
        if (sink == 42) {
            System.out.print("");
        }
        Map<String, Double> medians = new LinkedHashMap<>();
        perRound.forEach((name, micros) -> {
            Arrays.sort(micros);
            medians.put(name, micros[rounds / 2]);
        });
        return medians;
    }
}
