package chunkrelay.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

import static chunkrelay.bench.BenchReport.progress;

/**
 * The sections measured in this JVM by hand, each figure against its floor from the same run: output sizes, the
 * ingest stages one by one, view exports, fleet queries over rollups, the quota check.
 */
final class InProcessSections {
    private final BenchReport report;
    private final PrintWriter out;

    InProcessSections(BenchReport report) {
        this.report = report;
        this.out = report.out();
    }

    void outputSizes() {
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
            report.target(name + " OTLP <= 0.25 of JSON", s.plainRatio() <= 0.25,
                    String.format(Locale.ROOT, "%.3f", s.plainRatio()));
            double gzipTarget = name.equals(BenchChunks.NODE) ? 0.70 : 0.30;
            report.target(name + " gzipped OTLP <= " + gzipTarget + " of gzipped JSON", s.gzipRatio() <= gzipTarget,
                    String.format(Locale.ROOT, "%.3f (timestamps alone %.3f)", s.gzipRatio(),
                            (double) s.timestampsGzip() / s.jsonGzip()));
        }
        out.println("  timestamps: the samples' fixed64 timestamps alone, as laid out (one Sample per stack and thread);"
                + " ts time order: the same\n  fixed64 values in time order, were OTLP not to group them; measurements:"
                + " what the sentry.measurement.* attributes add");
    }

    void ingestStages() throws Exception {
        progress("ingest stages: each stage the relay runs per chunk, alone");
        out.printf("%nIngest stages (the recorded SDK chunks, each stage alone in this JVM: CPU of the calling thread,"
                + " system time included, median of rounds in turns;%n  x = against the bare Jackson token pass; stores:"
                + " the embedded S3Proxy on the filesystem, in this thread, with the relay's metadata)%n");
        for (String chunk : List.of(BenchChunks.JAVA, BenchChunks.NODE, BenchChunks.PYTHON)) {
            IngestStageCost.lines(chunk, IngestStageCost.measure(chunk)).forEach(line -> out.printf("  %s%n", line));
        }
    }

    void waitingChunks() throws Exception {
        progress("waiting chunks: a chunk held for its link window as compressed bytes or as its OTLP object");
        out.printf("%nWaiting chunks (the recorded SDK chunks, the derivation of a chunk that waits for its link window,"
                + " held as its compressed OTLP bytes or as the OTLP object;%n  spans of a service at 100 requests/s;"
                + " CPU of the calling thread, median of rounds in turns; x = against the bare Jackson token pass)%n");
        for (String chunk : List.of(BenchChunks.JAVA, BenchChunks.NODE, BenchChunks.PYTHON)) {
            WaitingChunkCost.lines(chunk, WaitingChunkCost.measure(chunk)).forEach(line -> out.printf("  %s%n", line));
        }
    }

    void perSecondMinute() {
        progress("per-second minute: a minute of " + PerSecondMinuteCost.PROFILERS + " Java profilers merged split per"
                + " second, its heap and detail object (about 3 minutes)");
        out.printf("%n%s%n", "Per-second minute (in this process: " + PerSecondMinuteCost.CHUNKS_PER_PROFILER
                + " recorded Java chunks per profiler, one after the other, merged into Rollup.detailMerger as an open"
                + " minute's partial and a detail are;\n  heap after System.gc(), the inputs' subtracted, median of 3"
                + " rounds)");
        PerSecondMinuteCost.lines(PerSecondMinuteCost.measure(PerSecondMinuteCost.PROFILERS, 3))
                .forEach(line -> out.printf("  %s%n", line));
    }

    void rollupMerge() {
        progress("rollup merge: an hour of a synthetic " + RollupMergeCost.PROCESSES + "-process fleet's rollups made"
                + " in this process, then decoded and merged (about 3 minutes)");
        out.printf("%n%s%n", "Rollup merge (in this process, no store: the rollups of an hour of the ranges section's"
                + " fleet as bytes, decoded and merged into a pprof answer's merger and its result taken;\n  wall of"
                + " the calling thread, median of " + RollupMergeCost.ROUNDS + " rounds after a warm-up; x = against"
                + " decoding the same rollups alone)");
        RollupMergeCost.lines(RollupMergeCost.measure(RollupMergeCost.PROCESSES, RollupMergeCost.ROUNDS))
                .forEach(line -> out.printf("  %s%n", line));
    }

    void views() throws Exception {
        progress("views: pprof export of a " + ViewExportCost.CHUNKS + "-chunk range against reading it");
        ViewExportCost.Result result = ViewExportCost.measure();
        out.printf("%nViews (a range of %d recorded Java chunks, %d bytes of OTLP, read from S3Proxy in this process;"
                + " CPU of the calling thread, median of 7 rounds)%n", ViewExportCost.CHUNKS, result.otlpBytes());
        ViewExportCost.lines(result).forEach(line -> out.printf("  %s%n", line));
    }

    void fleetQueries() throws Exception {
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
        report.target("fleet: 7 days of a 20-process fleet within 2 s (in process)",
                week.rollups().wallMillis() <= 2000, String.format(Locale.ROOT, "%.0f ms wall, %.0f ms CPU",
                        week.rollups().wallMillis(), week.rollups().cpuMillis()));
        FleetFunctionCost.Row functions = cost.functions().get(cost.functions().size() - 1);
        report.target("fleet: top functions of 7 days of a 20-process fleet within 1 s (in process)",
                functions.table().wallMillis() <= 1000, String.format(Locale.ROOT, "%.0f ms wall (profile %.0f ms)",
                        functions.table().wallMillis(), functions.floor().wallMillis()));
        report.target("fleet: regressions of 7 days of a 20-process fleet within 2 s (in process)",
                functions.regressions().wallMillis() <= 2000, String.format(Locale.ROOT,
                        "%.0f ms wall (profile %.0f ms)", functions.regressions().wallMillis(),
                        functions.floor().wallMillis()));
    }

    void quota() throws Exception {
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
}
