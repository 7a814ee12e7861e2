package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs every benchmark of issue 9 in one go and prints one table, each figure next to the floor measured in the
 * same run: the chunk path (JMH) against a bare Jackson token pass, output sizes against the chunk's JSON,
 * end-to-end ingest against the discard endpoint of the same relay, and the smallest heap for a 50 MiB chunk.
 *
 * <p>{@code mvn -B -q -Pbench -pl envelope -am verify -DskipTests}; the argument is the relay's shaded jar.
 * The table also goes to {@code envelope/target/benchmark-report.txt}.
 */
public final class BenchmarkSuite {
    /** Clients driving the end-to-end rows back to back: {@code -Dbench.concurrency}, 4 by default. */
    private static final int CONCURRENCY = Integer.getInteger("bench.concurrency", 4);
    private static final Duration WARMUP = Duration.ofSeconds(3);
    /** How long each end-to-end row runs: {@code -Dbench.load.seconds}, 10 by default. */
    private static final Duration LOAD = Duration.ofSeconds(Long.getLong("bench.load.seconds", 10));
    private static final Duration MAX_WARMUP = Duration.ofSeconds(180);
    private static final Duration JIT_CATCH_UP = Duration.ofSeconds(1);
    private static final String RELAY_HEAP = "512m";
    private static final int[] RELAY_HEAPS_MIB = {96, 128, 160, 192, 256, 320, 384, 512};
    private static final int[] CHUNK_PATH_HEAPS_MIB = {48, 64, 80, 96, 128, 160, 192, 256, 384, 512};
    private static final List<String> CHUNKS = List.of(BenchChunks.NODE, BenchChunks.JAVA, BenchChunks.SYNTHETIC);
    private static final int CPU_ROUNDS = 6;
    private static final String[] STAGES = {"jacksonTokenPass", "parseAndNormalise", "translate",
            "protobufSerialise", "wholeChunkPath"};

    private final StringWriter text = new StringWriter();
    private final PrintWriter out = new PrintWriter(text);
    private final List<String> targets = new ArrayList<>();

    private BenchmarkSuite() {
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no relay jar at " + jar + " (build it with mvn package first)");
        }
        // -Dbench.only=sizes,chunk-path,stages,android,links,views,fleet-views,end-to-end,default,soak,memory,quota
        // runs some sections; all by default
        Set<String> only = Set.of(System.getProperty("bench.only",
                        "sizes,chunk-path,stages,android,links,views,fleet-views,end-to-end,default,soak,memory,quota")
                .split(","));
        BenchmarkSuite suite = new BenchmarkSuite();
        suite.header();
        if (only.contains("sizes")) {
            suite.outputSizes();
        }
        if (only.contains("chunk-path")) {
            suite.chunkPath();
        }
        if (only.contains("stages")) {
            suite.ingestStages();
        }
        if (only.contains("android")) {
            suite.android();
        }
        if (only.contains("links")) {
            suite.links();
        }
        if (only.contains("views")) {
            suite.views();
        }
        if (only.contains("fleet-views")) {
            suite.fleetViews(jar);
        }
        if (only.contains("fleet-views") || only.contains("fleet-queries")) {
            suite.fleetQueries();
        }
        if (only.contains("end-to-end")) {
            suite.endToEnd(jar);
        }
        if (only.contains("default")) {
            suite.defaultConfiguration(jar);
        }
        if (only.contains("soak")) {
            suite.soak(jar);
        }
        if (only.contains("memory")) {
            suite.memory(jar);
        }
        if (only.contains("quota")) {
            suite.quota();
        }
        suite.targets();
        String table = suite.text.toString();
        System.out.print(table);
        Path report = jar.toAbsolutePath().getParent().resolve("benchmark-report.txt");
        Files.writeString(report, table);
        System.out.println("(also written to " + report + ")");
    }

    private void header() {
        Runtime runtime = Runtime.getRuntime();
        out.printf("chunk-relay benchmarks, %s, %s %s, %d cores, %s %s (%s)%n",
                Instant.now().truncatedTo(ChronoUnit.SECONDS), System.getProperty("os.name"),
                System.getProperty("os.arch"), runtime.availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), System.getProperty("java.vendor"));
    }

    private void outputSizes() {
        progress("output sizes");
        out.printf("%nOutput sizes (gzip level 6; ratio = OTLP / chunk JSON)%n");
        out.printf("%-8s %10s %9s %10s %6s %9s %6s | gzipped, share of gzipped JSON: %-15s %-15s %-15s%n",
                "chunk", "JSON B", "JSON gz B", "OTLP B", "ratio", "OTLP gz B", "ratio", "timestamps", "ts time order",
                "measurements");
        for (String name : List.of(BenchChunks.NODE, BenchChunks.JAVA)) {
            OutputSizes.Sizes s = OutputSizes.of(BenchChunks.item(name));
            out.printf(Locale.ROOT, "%-8s %10d %9d %10d %6.3f %9d %6.3f | %32s %7d (%.2f) %7d (%.2f) %7d (%.2f)%n",
                    name, s.json(), s.jsonGzip(), s.otlp(), s.plainRatio(), s.otlpGzip(), s.gzipRatio(), "",
                    s.timestampsGzip(), (double) s.timestampsGzip() / s.jsonGzip(), s.timestampsInTimeOrderGzip(),
                    (double) s.timestampsInTimeOrderGzip() / s.jsonGzip(), s.measurementsGzip(),
                    (double) s.measurementsGzip() / s.jsonGzip());
            target(name + " OTLP <= 0.25 of JSON", s.plainRatio() <= 0.25, String.format(Locale.ROOT, "%.3f", s.plainRatio()));
            double gzipTarget = name.equals(BenchChunks.NODE) ? 0.70 : 0.30;
            target(name + " gzipped OTLP <= " + gzipTarget + " of gzipped JSON", s.gzipRatio() <= gzipTarget,
                    String.format(Locale.ROOT, "%.3f (timestamps alone %.3f)", s.gzipRatio(),
                            (double) s.timestampsGzip() / s.jsonGzip()));
        }
        out.println("  timestamps: the samples' fixed64 timestamps alone, as laid out (one Sample per stack and thread);"
                + " ts time order: the same\n  fixed64 values in time order, were OTLP not to group them; measurements:"
                + " what the sentry.measurement.* attributes add");
    }

    private void chunkPath() throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        int warmups = quick ? 1 : 3;
        int measurements = quick ? 2 : 5;
        progress("JMH chunk path: 5 benchmarks x 3 chunks, 1 fork, " + warmups + "+" + measurements
                + " iterations of 1 s (about 3 minutes)");
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
            target(chunk + " whole chunk path <= 3x Jackson pass", whole <= 3,
                    String.format(Locale.ROOT, "%.2fx wall (JMH), %.2fx CPU", whole, wholeCpu));
        }
    }

    private void android() throws Exception {
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

    private void links() throws Exception {
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

    private void views() throws Exception {
        progress("views: pprof export of a " + ViewExportCost.CHUNKS + "-chunk range against reading it");
        ViewExportCost.Result result = ViewExportCost.measure();
        out.printf("%nViews (a range of %d recorded Java chunks, %d bytes of OTLP, read from S3Proxy in this process;"
                + " CPU of the calling thread, median of 7 rounds)%n", ViewExportCost.CHUNKS, result.otlpBytes());
        ViewExportCost.lines(result).forEach(line -> out.printf("  %s%n", line));
    }

    private void fleetViews(Path jar) throws Exception {
        Path work = Files.createTempDirectory("chunk-relay-fleet-");
        progress("fleet views: " + FleetRelayViews.PROFILERS * FleetRelayViews.CHUNKS_PER_PROFILER
                + " recorded Java chunks to the relay as shipped (-Xmx" + FleetRelayViews.HEAP + ") in " + work
                + ", then its views (about 5 minutes)");
        FleetRelayViews.Result fleet = FleetRelayViews.run(jar, work);
        out.printf("%nFleet views, the relay as shipped (shaded jar, default configuration, -Xmx%s, embedded archive on"
                + " the filesystem): the recorded Java chunk as %d profilers x %d chunks,%n  10 s of samples every 11 s"
                + " (33 minutes ending at the send), releases A (profilers 0-9) and B (10-19); first ask of each view,"
                + " wall time of the request%n  and the relay's CPU meanwhile (its rollup builder included); counts"
                + " against the samples sent%n", FleetRelayViews.HEAP, FleetRelayViews.PROFILERS,
                FleetRelayViews.CHUNKS_PER_PROFILER);
        List<String> lines = FleetRelayViews.lines(fleet);
        lines.forEach(line -> out.printf("  %s%n", line));
        for (FleetRelayViews.Ask ask : fleet.asks()) {
            double target = ask.name().contains("thirtieth") ? 400 : ask.name().contains("late")
                    || ask.name().contains("default") ? -1 : 1500;
            if (target > 0) {
                target("fleet: " + ask.name() + " within " + (int) target + " ms", ask.wallMillis() <= target,
                        String.format(Locale.ROOT, "%.0f ms", ask.wallMillis()));
            }
        }
        BenchmarkSuite.deleteTree(work);
        failOnWrongCounts(lines, fleet.asks().stream().filter(a -> !a.exact()).map(FleetRelayViews.Ask::name)
                .toList());
    }

    private void fleetQueries() throws Exception {
        progress("fleet queries: an hour of a synthetic 20-process fleet in this process, a week of rollups made of"
                + " it, ranges of 10 minutes to 7 days (about 5 minutes)");
        FleetQueryCost.Result cost = FleetQueryCost.measure();
        out.printf("%nFleet queries against range length (in this process: RangeReader.merge and the pprof answer"
                + " written, over the embedded S3 server on the filesystem as the relay's default store;%n  median"
                + " wall and CPU of the calling thread over 5 rounds after 2 warm-ups, raw 3; raw = the same merge"
                + " with no rollups, every chunk read whole;%n  x = rollups / raw; every answer's samples checked"
                + " against the minute rollups' and edge chunks' counts)%n");
        FleetQueryCost.lines(cost).forEach(line -> out.printf("  %s%n", line));
        FleetQueryCost.Row week = cost.lengths().get(cost.lengths().size() - 1);
        target("fleet: 7 days of a 20-process fleet within 2 s (in process)", week.rollups().wallMillis() <= 2000,
                String.format(Locale.ROOT, "%.0f ms wall, %.0f ms CPU", week.rollups().wallMillis(),
                        week.rollups().cpuMillis()));
    }

    /** A wrong count is a bug, not a figure: the section's lines go to stderr, then the run stops. */
    private static void failOnWrongCounts(List<String> lines, List<String> wrong) {
        if (!wrong.isEmpty()) {
            lines.forEach(System.err::println);
            throw new IllegalStateException("fleet views answered wrong sample counts: " + wrong);
        }
    }

    private void endToEnd(Path jar) throws Exception {
        Path work = Files.createTempDirectory("chunk-relay-bench-");
        progress("end-to-end load: relay -Xmx" + RELAY_HEAP + " in " + work);
        out.printf("%nEnd to end (relay shaded jar, -Xmx%s, embedded archive, loopback; JDK HttpClient, %d workers back"
                + " to back, %d s warm-up then %d s per row;%n  the recorded SDK requests with their headers, gzipped as"
                + " recorded, each with a fresh chunk id; MB/s of decoded envelopes; link window %d s, the relay's CPU"
                + " per chunk taken once every chunk of the row is derived)%n",
                RELAY_HEAP, CONCURRENCY, WARMUP.toSeconds(), LOAD.toSeconds(), RelayProcess.LINK_WINDOW.toSeconds());
        out.printf("%-8s %-18s %9s %7s %8s %8s %8s %7s  %s%n", "requests", "endpoint", "requests", "errors",
                "req/s", "MB/s", "p50 ms", "p99 ms", "ratio to discard");
        List<String> costs = new ArrayList<>();
        try (RelayProcess relay = RelayProcess.start(jar, RELAY_HEAP, work.resolve("load"))) {
            for (String sdk : List.of("java-8.43.0/", "node-11.1.0-long/")) {
                List<String> names = Fixtures.sdkRequests().stream().map(SdkRequest::name)
                        .filter(n -> n.startsWith(sdk)).toList();
                LoadRun load = new LoadRun(relay.base(), names);
                // the discard row first: run between the envelope warm-up and its row, it changes the profiles of
                // the code they share (body decoding), and the JIT then recompiles inside the measured row
                load.drive(true, CONCURRENCY, WARMUP);
                LoadRun.Result discard = load.drive(true, CONCURRENCY, LOAD);
                String warmUp = warmUntilCompiled(relay, load);
                relay.awaitDerived(WARMUP.plus(RelayProcess.LINK_WINDOW).plusSeconds(30));
                long cpuBefore = relay.cpuNanos();
                ThreadCpu.Snapshot threadsBefore = ThreadCpu.of(relay.pid());
                double allocatedBefore = relay.allocatedBytes();
                long archivedBefore = relay.archivedChunks();
                LoadRun.Result envelope = load.drive(false, CONCURRENCY, LOAD);
                // the row's chunks are derived after their link window: their CPU counts too
                relay.awaitDerived(RelayProcess.LINK_WINDOW.plusSeconds(30));
                long chunks = Math.max(1, relay.archivedChunks() - archivedBefore);
                double relayCpuPerChunk = (relay.cpuNanos() - cpuBefore) / 1e3 / chunks;
                Map<String, Long> byThreads = ThreadCpu.of(relay.pid()).since(threadsBefore);
                double relayAllocatedPerChunk = (relay.allocatedBytes() - allocatedBefore) / chunks;
                String label = sdk.substring(0, sdk.indexOf('-'));
                row(label, discard, "");
                double ratio = envelope.requestsPerSecond() / discard.requestsPerSecond();
                row(label, envelope, String.format(Locale.ROOT, "%.2f", ratio));
                ChunkCost.PerChunk path = ChunkCost.of(names, 200, 30);
                costs.add(String.format(Locale.ROOT, "%-8s relay CPU per archived chunk %8.0f us; bare Jackson token"
                        + " pass %6.0f us: ratio %.2f; chunk path %6.0f us: ratio %.2f (the path alone %.2fx the token pass)",
                        label, relayCpuPerChunk, path.tokenPassCpuMicros(), relayCpuPerChunk / path.tokenPassCpuMicros(),
                        path.cpuMicros(), relayCpuPerChunk / path.cpuMicros(),
                        path.cpuMicros() / path.tokenPassCpuMicros()));
                costs.add(String.format(Locale.ROOT, "%-8s relay allocates %.1f bytes per byte of chunk JSON (%.0f KB"
                        + " per archived chunk, the JVM's jvm_gc_memory_allocated over the row); the chunk path %.1f",
                        label, relayAllocatedPerChunk / path.jsonBytes(), relayAllocatedPerChunk / 1024,
                        path.allocationPerJsonByte()));
                costs.add(String.format(Locale.ROOT, "%-8s relay CPU per chunk by thread (us): %s; %s", label,
                        byThreads.entrySet().stream().filter(e -> e.getValue() > 0).limit(9)
                                .map(e -> e.getKey() + " " + Math.round(e.getValue() / 1e3 / chunks))
                                .collect(Collectors.joining(", ")), warmUp));
                target(label + " relay CPU per chunk <= 2x a bare Jackson pass",
                        relayCpuPerChunk <= 2 * path.tokenPassCpuMicros(),
                        String.format(Locale.ROOT, "%.2f", relayCpuPerChunk / path.tokenPassCpuMicros()));
                target(label + " chunk path alone <= 1.2x a bare Jackson pass (stretch)",
                        path.cpuMicros() <= 1.2 * path.tokenPassCpuMicros(),
                        String.format(Locale.ROOT, "%.2f", path.cpuMicros() / path.tokenPassCpuMicros()));
            }
            out.printf("  cost per chunk (relay: process CPU over the envelope row / chunks archived in it; token pass and"
                    + " chunk path: the same chunks in this JVM, in turns, CPU and allocation of the calling thread)%n");
            costs.forEach(line -> out.printf("  %s%n", line));
            out.printf("  relay peak RSS during the load run (VmHWM): %d MiB; chunks archived: %d%n",
                    relay.peakRssKib() / 1024, relay.archivedChunks());
            out.printf("  requests: %s%n", String.join(", ", Fixtures.sdkRequests().stream().map(SdkRequest::name)
                    .filter(n -> n.startsWith("java-8.43.0/") || n.startsWith("node-11.1.0-long/")).toList()));
        } finally {
            deleteTree(work);
        }
    }

    private void defaultConfiguration(Path jar) throws Exception {
        out.printf("%nDefault configuration (the relay's shaded jar as shipped: link window 30 s, -Xmx%s, the"
                + " container's heap (1 GiB x 60%%),%n  embedded archive, loopback; the recorded SDK envelopes"
                + " carrying a chunk, gzipped as sent, each with a fresh chunk id:%n  %d clients back to back for %d s,"
                + " then %.0f chunks/s for a window and %d s;%n  CPU us = the relay process's CPU per chunk: at full"
                + " load from the row's start until every chunk of it is derived;%n  at the fleet's rate over its"
                + " last %<d s, as many chunks derived as received; x value / x token = against the floor,%n  the"
                + " value-decoding Jackson pass / the token pass over the same chunks' JSON in this JVM; read-backs,"
                + " GC pauses%n  (humongous-allocation ones) and pause ms per chunk; held B = bytes held in memory per"
                + " waiting chunk at the end of the row's load;%n  alloc/B = bytes the relay allocated per byte of"
                + " chunk JSON)%n", DefaultConfigCost.CONTAINER_HEAP, DefaultConfigCost.CLIENTS,
                DefaultConfigCost.FULL_LOAD.toSeconds(), DefaultConfigCost.FLEET_RATE,
                DefaultConfigCost.FLEET.toSeconds());
        out.println(DefaultConfigCost.header());
        // -Dbench.default.sdks=java: one SDK's rows only
        List<String> sdks = List.of(System.getProperty("bench.default.sdks", "java,node").split(","));
        for (String sdk : List.of("java-8.43.0/", "node-11.1.0-long/")) {
            String label = sdk.substring(0, sdk.indexOf('-'));
            if (!sdks.contains(label)) {
                continue;
            }
            progress("default configuration: " + label + " at full load and at a fleet's rate (about 5 minutes)");
            Path work = Files.createTempDirectory("chunk-relay-bench-default-");
            DefaultConfigCost.Result result;
            try {
                result = DefaultConfigCost.measure(jar, sdk, work);
            } finally {
                deleteTree(work);
            }
            DefaultConfigCost.lines(label, result).forEach(out::println);
            double limit = label.equals("java") ? 2.0 : 3.0;
            for (DefaultConfigCost.Row row : result.rows()) {
                double ratio = row.cpuMicros() / result.floor().valuePassMicros();
                target(String.format(Locale.ROOT, "%s default config, %s: <= %.1fx value pass", label, row.load(),
                        limit), ratio <= limit, String.format(Locale.ROOT, "%.2f (read-backs per chunk %.3f)", ratio,
                        row.readBacks()));
            }
            DefaultConfigCost.Row full = result.rows().get(0);
            target(label + " default config at full load: no read-back", full.readBacks() == 0,
                    String.format(Locale.ROOT, "%.3f per chunk", full.readBacks()));
        }
        out.printf("  requests: %s%n", String.join(", ", DefaultConfigCost.chunkRequests("java-8.43.0/")) + ", "
                + String.join(", ", DefaultConfigCost.chunkRequests("node-11.1.0-long/")));
    }

    /**
     * Drives the envelope endpoint until the relay's JIT compilers are done with its paths (under 3% of the process's
     * CPU over a warm-up slice, at most {@link #MAX_WARMUP}): the rows measure the relay in its steady state, as the
     * chunk path is measured warm in this JVM. Says how long that took.
     */
    private String warmUntilCompiled(RelayProcess relay, LoadRun load) throws Exception {
        long started = System.nanoTime();
        double share = 1;
        while (System.nanoTime() - started < MAX_WARMUP.toNanos()) {
            long cpuBefore = relay.cpuNanos();
            ThreadCpu.Snapshot before = ThreadCpu.of(relay.pid());
            load.drive(false, CONCURRENCY, WARMUP);
            // the compilers fall behind while the load holds both cores and catch up once it stops: count that too
            Thread.sleep(JIT_CATCH_UP.toMillis());
            long jit = ThreadCpu.of(relay.pid()).since(before).getOrDefault("JIT compiler", 0L);
            share = (double) jit / Math.max(1, relay.cpuNanos() - cpuBefore);
            if (share < 0.03) {
                break;
            }
        }
        return String.format(Locale.ROOT, "envelope warm-up %.0f s, JIT %.1f%% of its last %d s",
                (System.nanoTime() - started) / 1e9, share * 100, WARMUP.toSeconds());
    }

    private void row(String label, LoadRun.Result result, String ratio) {
        out.printf(Locale.ROOT, "%-8s %-18s %9d %7d %8.1f %8.1f %8.2f %7.2f  %s%s%n", label, result.target(),
                result.ok(), result.errors(), result.requestsPerSecond(), result.decodedMegabytesPerSecond(),
                result.percentileMillis(50), result.percentileMillis(99), ratio,
                result.failures().isEmpty() ? "" : "  failures " + result.failures());
    }

    private void soak(Path jar) throws Exception {
        Duration duration = Duration.ofMinutes(Long.getLong("bench.soak.minutes", 5));
        progress("hostile soak for " + duration.toMinutes() + " min");
        boolean held = HostileSoak.run(jar, RELAY_HEAP, duration, out);
        target("hostile soak: no 5xx but 503, all in Relay's shape, RSS flat, every 200 archived", held,
                held ? "held" : "see the soak section");
    }

    private void memory(Path jar) throws Exception {
        progress("memory: the 50 MiB chunk at every -Xmx from 96m to 512m");
        byte[] envelope = MemoryProbe.envelopeWith(SyntheticChunk.ofSize(BenchChunks.SYNTHETIC_BYTES));
        Path work = Files.createTempDirectory("chunk-relay-bench-memory-");
        Map<Integer, String> answers = new LinkedHashMap<>();
        try {
            for (int heap : RELAY_HEAPS_MIB) {
                answers.put(heap, MemoryProbe.relayAnswer(jar, heap, work, envelope));
            }
        } finally {
            deleteTree(work);
        }
        MemoryProbe.Bisection chunkPath = MemoryProbe.bisect(CHUNK_PATH_HEAPS_MIB, MemoryProbe::chunkPathFits);
        int smallest = answers.entrySet().stream().filter(e -> e.getValue().equals("200")).mapToInt(Map.Entry::getKey)
                .min().orElse(-1);
        out.printf("%nMemory (synthetic chunk of %d bytes, %d samples)%n", BenchChunks.SYNTHETIC_BYTES,
                SyntheticChunk.samplesIn(BenchChunks.SYNTHETIC_BYTES));
        out.printf("  relay jar, one envelope holding the chunk: smallest -Xmx answering 200 (archived) %s%n",
                mib(smallest));
        answers.forEach((heap, answer) -> out.printf("    -Xmx%dm: %s%n", heap, answer));
        out.printf("  chunk path in one JVM (parse, normalise, translate, serialise): smallest -Xmx %s  (tried %s)%n",
                mib(chunkPath.smallestPassing()), chunkPath.tried());
        boolean only200or503 = answers.values().stream().allMatch(a -> a.equals("200") || a.startsWith("503 "));
        target("50 MiB chunk with -Xmx96m..512m: 200 or 503, never 500 or no answer", only200or503,
                "answers " + answers.values().stream().map(a -> a.split(" ")[0]).toList());
        target("50 MiB chunk through the relay with -Xmx512m", smallest > 0 && smallest <= 512,
                "smallest passing -Xmx " + mib(smallest));
    }

    private void ingestStages() throws Exception {
        progress("ingest stages: each stage the relay runs per chunk, alone");
        out.printf("%nIngest stages (the recorded SDK chunks, each stage alone in this JVM: CPU of the calling thread,"
                + " system time included, median of rounds in turns;%n  x = against the bare Jackson token pass; stores:"
                + " the embedded S3Proxy on the filesystem, in this thread, with the relay's metadata)%n");
        for (String chunk : List.of(BenchChunks.JAVA, BenchChunks.NODE)) {
            IngestStageCost.lines(chunk, IngestStageCost.measure(chunk)).forEach(line -> out.printf("  %s%n", line));
        }
    }

    private void quota() throws Exception {
        progress("quota check per chunk: in this process and in Redis on loopback, " + QuotaCost.ROUNDS + " rounds of "
                + QuotaCost.CHECKS_PER_ROUND + " checks each, taken in turns");
        QuotaCost.Result cost = QuotaCost.measure();
        out.printf("%nQuota check per chunk (ProjectRateLimiter with a chunk and a byte quota, one thread, %d rounds of %d"
                + " checks in turns, first round warm-up;%n  medians per check; Redis: a real redis-server on loopback,"
                + " one Lua script call; CPU = the calling thread only)%n", QuotaCost.ROUNDS, QuotaCost.CHECKS_PER_ROUND);
        out.printf("%-26s %12s %12s%n", "counter", "wall ns", "CPU ns");
        out.printf(Locale.ROOT, "%-26s %12.0f %12.0f%n", "in this process (floor)", cost.localWallNanos(),
                cost.localCpuNanos());
        out.printf(Locale.ROOT, "%-26s %12.0f %12.0f%n", "Redis on loopback", cost.redisWallNanos(),
                cost.redisCpuNanos());
        out.printf(Locale.ROOT, "  ratio Redis / in process: %.1fx wall, %.1fx CPU%n", cost.wallRatio(),
                cost.redisCpuNanos() / cost.localCpuNanos());
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

    private void targets() {
        out.printf("%nTargets%n");
        targets.forEach(out::println);
        out.flush();
    }

    private void target(String what, boolean met, String measured) {
        targets.add(String.format("  %-6s %-68s %s", met ? "met" : "MISSED", what, measured));
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static String mib(int mib) {
        return mib < 0 ? "none of the candidates" : mib + "m";
    }

    private static void progress(String step) {
        System.err.println("[bench " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "] " + step);
    }
}
