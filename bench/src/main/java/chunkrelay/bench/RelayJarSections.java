package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import static chunkrelay.bench.BenchReport.progress;

/**
 * The sections that start the relay's shaded jar and measure it as shipped, over loopback: fleet views, end-to-end
 * load against the discard endpoint, the default configuration, the hostile soak and the smallest heap for a
 * 50 MiB chunk.
 */
final class RelayJarSections {
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

    private final BenchReport report;
    private final PrintWriter out;
    private final Path jar;

    /** @param jar the relay's shaded jar */
    RelayJarSections(BenchReport report, Path jar) {
        this.report = report;
        this.out = report.out();
        this.jar = jar;
    }

    void fleetViews() throws Exception {
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
                report.target("fleet: " + ask.name() + " within " + (int) target + " ms", ask.wallMillis() <= target,
                        String.format(Locale.ROOT, "%.0f ms", ask.wallMillis()));
            }
        }
        BenchmarkSuite.deleteTree(work);
        failOnWrongCounts(lines, fleet.asks().stream().filter(a -> !a.exact()).map(FleetRelayViews.Ask::name)
                .toList());
    }

    /**
     * A live fleet at 20, 50, 100 and 200 processes ({@code -Dbench.quick=true}: 20 and 200, shorter runs), then a
     * six-hour backfill ({@code -Dbench.live.backfill=false} leaves it out): issue 48's ranges asked every 20 s while
     * the fleet sends for {@code -Dbench.live.seconds} (420).
     */
    void liveViews() throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        // -Dbench.live.processes=200 runs one fleet size, none the backfill alone
        String only = System.getProperty("bench.live.processes", "default");
        if (only.equals("default")) {
            only = quick ? "20,200" : "20,50,100,200";
        }
        int[] sizes = only.equals("none") ? new int[0]
                : java.util.Arrays.stream(only.split(",")).mapToInt(v -> Integer.parseInt(v.trim())).toArray();
        Duration length = Duration.ofSeconds(Long.getLong("bench.live.seconds", quick ? 150 : 420));
        out.printf("%nLive fleet views, the relay as shipped (shaded jar, default configuration: 30 s link window,"
                + " rollups 45 s after each minute, -Xmx%s):%n  the recorded Java chunk as N processes each ending a"
                + " 10 s chunk every 10 s, dated now, for %d s; issue 48's ranges asked every"
                + " 20 s;%n  wall time of each 200 against the floor: the run's range asked once every minute of it"
                + " has settled into rollups, nothing sent%n", LiveFleetViews.HEAP, length.toSeconds());
        List<String> wrong = new ArrayList<>();
        for (int processes : sizes) {
            Path work = Files.createTempDirectory("chunk-relay-live-");
            progress("live views: " + processes + " processes for " + length.toSeconds() + " s, then settling");
            LiveFleetViews.Steady run = LiveFleetViews.steady(jar, work, processes, length);
            List<String> lines = LiveFleetViews.lines(run);
            lines.forEach(line -> out.printf("  %s%n", line));
            // as they come: a later failure must not hide them
            lines.forEach(line -> progress("  " + line));
            long refused = run.asks().stream().filter(a -> !a.answered()).count();
            double slowest = run.asks().stream().mapToDouble(LiveFleetViews.Ask::wallMillis).max().orElse(0);
            report.target("live: " + processes + " processes, every ask 200 within 1 s (503 in the first minute)",
                    refused == 0 && slowest <= 1000, String.format(Locale.ROOT, "%d not answered, slowest %.0f ms",
                            refused, slowest));
            if (!LiveFleetViews.exact(run)) {
                wrong.add(processes + " processes");
            }
            BenchmarkSuite.deleteTree(work);
        }
        if (!Boolean.parseBoolean(System.getProperty("bench.live.backfill", "true"))) {
            failOnWrongCounts(List.of(), wrong);
            return;
        }
        Path work = Files.createTempDirectory("chunk-relay-backfill-");
        progress("live views: a six-hour backfill of four processes, asked while the builder catches up");
        LiveFleetViews.Backfill backfill = LiveFleetViews.backfill(jar, work, Duration.ofHours(6));
        out.printf("  backfill, 6 hours of 4 processes (10 s chunks every 11 s) into settled minutes:%n");
        LiveFleetViews.lines(backfill).forEach(line -> out.printf("    %s%n", line));
        boolean no400 = java.util.stream.Stream.concat(backfill.whileSending().stream(), backfill.asks().stream())
                .noneMatch(a -> a.status() == 400);
        boolean exactAtEnd = backfill.firstExactSeconds() >= 0;
        report.target("backfill: no 400 while catching up, then 200 exact", no400 && exactAtEnd,
                String.format(Locale.ROOT, "first exact 200 after %.0f s", backfill.firstExactSeconds()));
        BenchmarkSuite.deleteTree(work);
        if (!wrong.isEmpty() || backfill.asks().stream().anyMatch(a -> a.status() == 200 && !a.exact())) {
            throw new IllegalStateException("live views answered wrong sample counts: " + wrong);
        }
    }

    /**
     * Ranges cut on a second against the fleet's rate ({@link FleetRangeCost}): {@code -Dbench.ranges.processes}
     * (20,50,100,200,400 by default; 20,200 with {@code -Dbench.quick=true}), each an hour backfilled then
     * {@code -Dbench.ranges.live-seconds} (180) live; {@code -Dbench.ranges.jars=/a.jar,/b.jar} measures other
     * builds of the relay in the same run, each after this one, for a before and after.
     */
    void ranges() throws Exception {
        boolean quick = Boolean.getBoolean("bench.quick");
        String sizes = System.getProperty("bench.ranges.processes", "default");
        if (sizes.isBlank() || sizes.equals("default")) {
            sizes = quick ? "20,200" : "20,50,100,200,400";
        }
        Duration live = Duration.ofSeconds(Long.getLong("bench.ranges.live-seconds", 180));
        List<Path> jars = new ArrayList<>(List.of(jar));
        jars.addAll(otherJars("bench.ranges.jars"));
        out.printf("%nRanges cut on a second against the fleet's rate, the relay as shipped (shaded jar, default"
                + " configuration, -Xmx%s): N processes of four threads each%n  ending a 10 s chunk every 10 s"
                + " (synthetic, 400 samples); an hour of them written into the archive before the relay starts and"
                + " rolled up by its%n  builder, then %d s live (dated now, over HTTP); from the live phase's second"
                + " minute, every 20 s, each range asked with from and to%n  on a second inside a minute: statuses,"
                + " wall time against the floor (one minute rollup of that fleet read and decoded in the bench JVM),"
                + "%n  the relay's CPU; then, in this process over the archive the relay left, where a settled"
                + " hour's answer goes%n", FleetRangeCost.HEAP, live.toSeconds());
        for (Path build : jars) {
            out.printf("  relay %s%n", build);
            for (String size : sizes.split(",")) {
                int processes = Integer.parseInt(size.trim());
                Path work = Files.createTempDirectory("chunk-relay-ranges-");
                progress("ranges: " + processes + " processes, an hour backfilled, then " + live.toSeconds()
                        + " s live (" + build.getFileName() + ")");
                try {
                    FleetRangeCost.Result result = FleetRangeCost.run(build, work, processes, live);
                    FleetRangeCost.lines(result).forEach(line -> out.printf("  %s%n", line));
                    out.flush();
                } finally {
                    BenchmarkSuite.deleteTree(work);
                }
            }
        }
    }

    /** A wrong count is a bug, not a figure: the section's lines go to stderr, then the run stops. */
    private static void failOnWrongCounts(List<String> lines, List<String> wrong) {
        if (!wrong.isEmpty()) {
            lines.forEach(System.err::println);
            throw new IllegalStateException("fleet views answered wrong sample counts: " + wrong);
        }
    }

    void endToEnd() throws Exception {
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
                report.target(label + " relay CPU per chunk <= 2x a bare Jackson pass",
                        relayCpuPerChunk <= 2 * path.tokenPassCpuMicros(),
                        String.format(Locale.ROOT, "%.2f", relayCpuPerChunk / path.tokenPassCpuMicros()));
                report.target(label + " chunk path alone <= 1.2x a bare Jackson pass (stretch)",
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
            BenchmarkSuite.deleteTree(work);
        }
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

    void defaultConfiguration() throws Exception {
        out.printf("%nDefault configuration (the relay's shaded jar as shipped: link window 30 s, -Xmx%s, the"
                + " container's heap (1 GiB x 60%%),%n  embedded archive, loopback; the recorded SDK envelopes"
                + " carrying a chunk, gzipped as sent, each with a fresh chunk id, %s:%n  %d clients back to back for"
                + " %d s,"
                + " then %.0f chunks/s for a window and %d s;%n  CPU us = the relay process's CPU per chunk: at full"
                + " load from the row's start until every chunk of it is derived;%n  at the fleet's rate over its"
                + " last %<d s, as many chunks derived as received; x archive / x value / x token = against the"
                + " floors,%n  the archive pass (the gzipped chunk inflated, its values decoded, zstd level 1) / the"
                + " value-decoding Jackson pass / the token pass%n  over the same chunks' JSON in this JVM; read-backs,"
                + " GC pauses%n  (humongous-allocation ones) and pause ms per chunk; held B = bytes held in memory per"
                + " waiting chunk at the end of the row's load;%n  alloc/B = bytes the relay allocated per byte of"
                + " chunk JSON)%n", DefaultConfigCost.CONTAINER_HEAP, DefaultConfigCost.DATED_NOW
                ? "samples dated now" : "samples as recorded (late chunks)", DefaultConfigCost.CLIENTS,
                DefaultConfigCost.FULL_LOAD.toSeconds(), DefaultConfigCost.FLEET_RATE,
                DefaultConfigCost.FLEET.toSeconds());
        out.println(DefaultConfigCost.header());
        // -Dbench.default.sdks=java: one SDK's rows only
        List<String> sdks = List.of(System.getProperty("bench.default.sdks", "java,node,python").split(","));
        List<Path> others = otherJars("bench.default.jars");
        int rounds = others.isEmpty() ? 1 : Integer.getInteger("bench.default.rounds", 2);
        if (!others.isEmpty()) {
            out.printf("  interleaved with %s, %d rounds, the order turned each round: a row per build and round,"
                    + " the targets on this build's rows%n", others, rounds);
        }
        for (String sdk : List.of("java-8.43.0/", "node-11.1.0-long/", "python-2.75.0/")) {
            String label = sdk.substring(0, sdk.indexOf('-'));
            if (!sdks.contains(label)) {
                continue;
            }
            for (int round = 0; round < rounds; round++) {
                List<Path> builds = new ArrayList<>(List.of(jar));
                builds.addAll(others);
                if (round % 2 == 1) {
                    java.util.Collections.reverse(builds);
                }
                for (Path build : builds) {
                    String name = others.isEmpty() ? label : label + " (" + (build.equals(jar) ? "this build"
                            : build.getFileName()) + ", round " + (round + 1) + ")";
                    DefaultConfigCost.Result result = defaultConfiguration(build, sdk, name);
                    if (build.equals(jar)) {
                        defaultTargets(label, result);
                    }
                }
            }
        }
        out.printf("  requests: %s%n", String.join(", ", DefaultConfigCost.chunkRequests("java-8.43.0/")) + ", "
                + String.join(", ", DefaultConfigCost.chunkRequests("node-11.1.0-long/")) + ", "
                + String.join(", ", DefaultConfigCost.chunkRequests("python-2.75.0/")));
    }

    private DefaultConfigCost.Result defaultConfiguration(Path build, String sdk, String name) throws Exception {
        progress("default configuration: " + name + " at full load and at a fleet's rate (about 5 minutes)");
        Path work = Files.createTempDirectory("chunk-relay-bench-default-");
        DefaultConfigCost.Result result;
        try {
            result = DefaultConfigCost.measure(build, sdk, work);
        } finally {
            BenchmarkSuite.deleteTree(work);
        }
        DefaultConfigCost.lines(name, result).forEach(out::println);
        out.flush();
        return result;
    }

    private void defaultTargets(String label, DefaultConfigCost.Result result) {
        double limit = label.equals("java") ? 2.0 : 3.0;
        for (DefaultConfigCost.Row row : result.rows()) {
            double ratio = row.cpuMicros() / result.floor().valuePassMicros();
            report.target(String.format(Locale.ROOT, "%s default config, %s: <= %.1fx value pass", label,
                    row.load(), limit), ratio <= limit, String.format(Locale.ROOT,
                    "%.2f (read-backs per chunk %.3f)", ratio, row.readBacks()));
        }
        for (DefaultConfigCost.Row row : result.rows()) {
            double ratio = row.cpuMicros() / result.floor().archivePassMicros();
            report.target(String.format(Locale.ROOT, "%s default config, %s: <= 1.3x archive floor (issue 49)",
                    label, row.load()), ratio <= 1.3, String.format(Locale.ROOT, "%.2f", ratio));
        }
        DefaultConfigCost.Row full = result.rows().get(0);
        report.target(label + " default config at full load: no read-back", full.readBacks() == 0,
                String.format(Locale.ROOT, "%.3f per chunk", full.readBacks()));
    }

    /** Other builds of the relay named by a comma list in a system property, e.g. {@code /tmp/before.jar}. */
    private static List<Path> otherJars(String property) {
        List<Path> jars = new ArrayList<>();
        for (String other : System.getProperty(property, "").split(",")) {
            if (!other.isBlank()) {
                jars.add(Path.of(other.trim()));
            }
        }
        return jars;
    }

    void soak() throws Exception {
        Duration duration = Duration.ofMinutes(Long.getLong("bench.soak.minutes", 5));
        progress("hostile soak for " + duration.toMinutes() + " min");
        boolean held = HostileSoak.run(jar, RELAY_HEAP, duration, out);
        report.target("hostile soak: no 5xx but 503, all in Relay's shape, RSS flat, every 200 archived", held,
                held ? "held" : "see the soak section");
    }

    void memory() throws Exception {
        progress("memory: the 50 MiB chunk at every -Xmx from 96m to 512m");
        byte[] envelope = MemoryProbe.envelopeWith(SyntheticChunk.ofSize(BenchChunks.SYNTHETIC_BYTES));
        Path work = Files.createTempDirectory("chunk-relay-bench-memory-");
        Map<Integer, String> answers = new LinkedHashMap<>();
        try {
            for (int heap : RELAY_HEAPS_MIB) {
                answers.put(heap, MemoryProbe.relayAnswer(jar, heap, work, envelope));
            }
        } finally {
            BenchmarkSuite.deleteTree(work);
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
        report.target("50 MiB chunk with -Xmx96m..512m: 200 or 503, never 500 or no answer", only200or503,
                "answers " + answers.values().stream().map(a -> a.split(" ")[0]).toList());
        report.target("50 MiB chunk through the relay with -Xmx512m", smallest > 0 && smallest <= 512,
                "smallest passing -Xmx " + mib(smallest));
    }

    private static String mib(int mib) {
        return mib < 0 ? "none of the candidates" : mib + "m";
    }
}
