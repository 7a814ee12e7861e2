package chunkrelay.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.PrintWriter;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static chunkrelay.bench.BenchReport.progress;

/**
 * The sections measured with JMH, each benchmark class in a fork of its own: the chunk path by stage (with the same
 * stages in CPU time), the Android ART and Perfetto paths, translation with and without span links.
 */
final class JmhSections {
    private static final List<String> CHUNKS = List.of(BenchChunks.NODE, BenchChunks.JAVA, BenchChunks.PYTHON,
            BenchChunks.SYNTHETIC);
    private static final int CPU_ROUNDS = 6;
    private static final String[] STAGES = {"jacksonTokenPass", "parseAndNormalise", "translate",
            "protobufSerialise", "wholeChunkPath"};

    private final BenchReport report;
    private final PrintWriter out;

    JmhSections(BenchReport report) {
        this.report = report;
        this.out = report.out();
    }

    void chunkPath() throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        int warmups = quick ? 1 : 3;
        int measurements = quick ? 2 : 5;
        progress("JMH chunk path: 5 benchmarks x 4 chunks, 1 fork, " + warmups + "+" + measurements
                + " iterations of 1 s (about 4 minutes)");
        Collection<RunResult> results = jmh(ChunkPathBenchmark.class, warmups, measurements, "-Xmx3g", "-Xms3g");
        Map<String, double[]> scores = new HashMap<>();
        for (RunResult result : results) {
            String benchmark = result.getParams().getBenchmark();
            String stage = benchmark.substring(benchmark.lastIndexOf('.') + 1);
            scores.put(result.getParams().getParam("chunk") + "/" + stage,
                    new double[] {result.getPrimaryResult().getStatistics().getPercentile(50),
                            result.getPrimaryResult().getStatistics().getPercentile(90)});
        }
        progress("chunk path in CPU time, stages taken in turns (about 1 minute)");
        Map<String, Map<String, Double>> cpu = new HashMap<>();
        for (String chunk : CHUNKS) {
            cpu.put(chunk, InterleavedCpuTime.measure(chunk, CPU_ROUNDS, chunk.equals(BenchChunks.SYNTHETIC) ? 600 : 250));
        }
        out.printf("%nChunk path (JMH 1.37 sample time, 1 fork, %d x 1 s warm-up, %d x 1 s measured: median and 90th"
                + " percentile call, wall time;%n  MB/s of chunk JSON at the median; x floor = median / median of the bare"
                + " Jackson token pass over the same bytes)%n", warmups, measurements);
        out.printf("  CPU columns: the same operations taken in turns for %d rounds, median CPU time of the measuring"
                + " thread (immune to other processes on the machine)%n", CPU_ROUNDS - 1);
        out.printf("%-16s %10s  %-18s %12s %9s %9s %9s | %12s %9s%n", "chunk", "JSON B", "stage", "p50 us", "p90 us",
                "MB/s", "x floor", "CPU us/op", "x floor");
        for (String chunk : CHUNKS) {
            int bytes = chunk.equals(BenchChunks.SYNTHETIC) ? BenchChunks.SYNTHETIC_BYTES
                    : BenchChunks.item(chunk).payload().length;
            double floor = scores.get(chunk + "/jacksonTokenPass")[0];
            double cpuFloor = cpu.get(chunk).get("jacksonTokenPass");
            for (String stage : STAGES) {
                double[] score = scores.get(chunk + "/" + stage);
                double cpuScore = cpu.get(chunk).get(stage);
                out.printf(Locale.ROOT, "%-16s %10d  %-18s %12.1f %9.0f %9.1f %9.2f | %12.1f %9.2f%n", chunk, bytes,
                        stage, score[0], score[1], bytes / score[0], score[0] / floor, cpuScore, cpuScore / cpuFloor);
            }
            double whole = scores.get(chunk + "/wholeChunkPath")[0] / floor;
            double wholeCpu = cpu.get(chunk).get("wholeChunkPath") / cpuFloor;
            report.target(chunk + " whole chunk path <= 3x Jackson pass", whole <= 3,
                    String.format(Locale.ROOT, "%.2fx wall (JMH), %.2fx CPU", whole, wholeCpu));
        }
    }

    void android() throws Exception {
        progress("JMH Android ART path: 4 benchmarks, 1 fork, 3+5 iterations of 1 s (about 40 s)");
        Map<String, Double> medians = medians(jmh(ArtTraceBenchmark.class, 3, 5, "-Xmx1g"));
        int bytes = ArtTraceBenchmark.traceBytes();
        out.printf("%nAndroid ART path (the fixtures' real sampling trace, %d bytes decoded; JMH sample time, median"
                + " call; MB/s of decoded trace;%n  x floor = median / median of a bare pass reading every byte of the"
                + " same trace once)%n", bytes);
        stageRows(medians, bytes, List.of("barePass", "parse", "parseAndReplay", "wholeChunk"));
        out.println("  wholeChunk: the chunk JSON as the SDK sends it (base64 trace inside) through ChunkProcessor");
        perfetto();
    }

    private void perfetto() throws Exception {
        progress("JMH Android Perfetto path: 3 benchmarks, 1 fork, 3+5 iterations of 1 s (about 30 s)");
        Map<String, Double> medians = medians(jmh(PerfettoTraceBenchmark.class, 3, 5, "-Xmx1g"));
        int bytes = PerfettoTraceBenchmark.traceBytes();
        out.printf("%nAndroid Perfetto path (a synthetic minute at 101 Hz on 8 threads, %d bytes of trace; JMH sample"
                + " time, median call; MB/s of trace;%n  x floor = median / median of a bare pass reading every byte"
                + " of the same trace once)%n", bytes);
        stageRows(medians, bytes, List.of("barePass", "parse", "wholeChunk"));
        out.println("  parse: PerfettoTraceConverter (packets, interned tables, frames, stacks, samples);"
                + " wholeChunk: the compound item through ChunkProcessor");
    }

    void links() throws Exception {
        progress("JMH linking: translate with and without spans, 1 fork, 3+5 iterations of 1 s (about 20 s)");
        Map<String, Double> medians = medians(jmh(LinkingBenchmark.class, 3, 5, "-Xmx1g"));
        int spans = LinkingBenchmark.busyServiceSpans(LinkingBenchmark.javaChunk()).size();
        double without = medians.get("translateWithoutSpans");
        double with = medians.get("translateWithSpans");
        out.printf("%nTrace links (the recorded Java chunk, 10 s, %d threads; spans of a service at %d requests/s,"
                        + " 4 nested spans each: %d spans over the chunk; JMH sample time, median call)%n",
                LinkingBenchmark.javaChunk().threadCount(), LinkingBenchmark.REQUESTS_PER_SECOND, spans);
        out.printf(Locale.ROOT, "  translate without spans %10.1f us%n", without);
        out.printf(Locale.ROOT, "  translate with spans    %10.1f us   x %.2f%n", with, with / without);
        SpanIndexMemory.Measured memory = SpanIndexMemory.measure(10_000);
        out.printf(Locale.ROOT, "  span index memory: %.1f MiB per 10 000 spans (%d bytes a span; retained heap"
                + " after GC, %d profilers)%n", memory.bytes() / 1048576.0, memory.bytes() / 10_000,
                memory.profilers());
    }

    /** Runs the benchmarks of one JMH class in a fork of its own, iterations of 1 s each. */
    private static Collection<RunResult> jmh(Class<?> benchmarks, int warmups, int measurements, String... jvmArgs)
            throws Exception {
        Options options = new OptionsBuilder()
                .include(benchmarks.getName() + "\\.")
                .forks(1)
                .warmupIterations(warmups).warmupTime(TimeValue.seconds(1))
                .measurementIterations(measurements).measurementTime(TimeValue.seconds(1))
                .jvmArgs(jvmArgs)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        return new Runner(options).run();
    }

    /** The median call of each benchmark, in microseconds, by its method's name. */
    private static Map<String, Double> medians(Collection<RunResult> results) {
        Map<String, Double> medians = new HashMap<>();
        for (RunResult result : results) {
            String benchmark = result.getParams().getBenchmark();
            medians.put(benchmark.substring(benchmark.lastIndexOf('.') + 1),
                    result.getPrimaryResult().getStatistics().getPercentile(50));
        }
        return medians;
    }

    /** One row per stage over a trace of {@code bytes}: median, MB/s and the ratio to {@code barePass}. */
    private void stageRows(Map<String, Double> medians, int bytes, List<String> stages) {
        double floor = medians.get("barePass");
        out.printf("%-16s %12s %9s %9s%n", "stage", "p50 us", "MB/s", "x floor");
        for (String stage : stages) {
            double median = medians.get(stage);
            out.printf(Locale.ROOT, "%-16s %12.1f %9.1f %9.2f%n", stage, median, bytes / median, median / floor);
        }
    }
}
