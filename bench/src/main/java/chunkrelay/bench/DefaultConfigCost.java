package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.envelope.testing.PrometheusScrape;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * What a chunk costs the relay as a user runs it: the shaded jar with its default configuration (a 30 s link window)
 * at the shipped container's heap, driven by the recorded SDK envelopes of one SDK (those carrying a chunk, gzipped as
 * sent, each with a fresh chunk id and its samples dated now, as a live SDK's arrive: {@code -Dbench.default.dated-now=false}
 * sends them with their recorded dates, late chunks to the relay) at full load (clients back to back) and at a fleet's
 * fixed rate. The full-load row
 * counts the relay process's CPU from its start until every chunk of it is derived, so the derivations after the
 * window count; the fleet row counts it over its steady state ({@link #fleetRow}). Per chunk, besides: the
 * read-backs, what a waiting chunk holds, GC pauses and allocation. The floor is {@link ReadingFloor}, over the same
 * chunks' JSON in this JVM.
 */
final class DefaultConfigCost {
    /** The container's: 1 GiB x {@code MaxRAMPercentage=60}. */
    static final String CONTAINER_HEAP = "600m";
    static final int CLIENTS = 2;
    /** Full-load rows: {@code -Dbench.default.seconds}, 20 by default. */
    static final Duration FULL_LOAD = Duration.ofSeconds(Long.getLong("bench.default.seconds", 20));
    /** Fleet rows: {@code -Dbench.fleet.rate} chunks a second for {@code -Dbench.fleet.seconds}. */
    static final double FLEET_RATE = Double.parseDouble(System.getProperty("bench.fleet.rate", "20"));
    static final Duration FLEET = Duration.ofSeconds(Long.getLong("bench.fleet.seconds", 60));
    static final boolean DATED_NOW = Boolean.parseBoolean(System.getProperty("bench.default.dated-now", "true"));
    private static final Duration WINDOW = Duration.ofSeconds(30);
    /** Past the window, so that the warm-up's first derivations run (and are compiled) before anything is measured. */
    private static final Duration MIN_WARM_UP = WINDOW.plusSeconds(15);
    /**
     * The compilers go on for minutes (C2 still compiled about 180 methods after 150 s of load): a relay that runs
     * all day has long finished, so the rows wait until they take under {@link #SETTLED_JIT_SHARE} of its CPU.
     */
    private static final Duration MAX_WARM_UP = Duration.ofSeconds(240);
    private static final double SETTLED_JIT_SHARE = 0.01;
    private static final Duration SLICE = Duration.ofSeconds(3);
    private static final Duration DRAIN = WINDOW.plusSeconds(90);
    private static final Duration IDLE = Duration.ofSeconds(10);
    private static final String HUMONGOUS = "G1 Humongous Allocation";

    /** One row: what it sent and what the relay spent per chunk. */
    record Row(String load, long chunks, long errors, Map<String, Long> failures, long underived, double cpuMicros,
               double readBacks,
               double heldBytesPerWaiting, double pauses, double humongousPauses, double pauseMillis,
               double allocatedBytes, Map<String, Long> cpuByThread) {
    }

    /**
     * The rows of one SDK, its floor (the lower of the value passes before and after the rows, both given), how long
     * the relay took to warm up, and its CPU when idle.
     */
    record Result(List<Row> rows, ReadingFloor.Floor floor, double valuePassBeforeMicros, double valuePassAfterMicros,
                  String warmUp, double idleCpuMillisPerSecond) {
    }

    private DefaultConfigCost() {
    }

    /** The chunk-carrying recorded requests whose names start with {@code sdk} (e.g. {@code java-8.43.0/}). */
    static List<String> chunkRequests(String sdk) {
        return Fixtures.sdkChunks().stream().map(RecordedChunk::request).filter(n -> n.startsWith(sdk)).distinct()
                .toList();
    }

    static Result measure(Path jar, String sdk, Path work) throws Exception {
        List<String> names = chunkRequests(sdk);
        List<byte[]> payloads = Fixtures.sdkChunks().stream().filter(c -> names.contains(c.request()))
                .map(RecordedChunk::payload).toList();
        // the floor before and after the rows: other processes on a shared machine slow this thread's CPU too (in
        // one run the Java pass took 9.7 ms instead of 5.2), and the lower of the two is the floor, so that a
        // burst of load inflates no ratio in the relay's favour
        ReadingFloor.Floor before = ReadingFloor.of(payloads);
        List<Row> rows = new ArrayList<>();
        String warmUp;
        double idle;
        try (RelayProcess relay = RelayProcess.startAsShipped(jar, CONTAINER_HEAP, work)) {
            LoadRun load = new LoadRun(relay.base(), names, DATED_NOW);
            warmUp = warmUp(relay, load);
            relay.awaitDerived(DRAIN);
            rows.add(row(relay, CLIENTS + " clients, full load", () -> load.drive(false, CLIENTS, FULL_LOAD)));
            rows.add(fleetRow(relay, load));
            // what the relay spends with nothing to do (heartbeats, the hand-out's ticks, compilers catching up),
            // part of any rate's cost per chunk
            long cpuBefore = relay.cpuNanos();
            Thread.sleep(IDLE.toMillis());
            idle = (relay.cpuNanos() - cpuBefore) / 1e6 / IDLE.toSeconds();
        }
        ReadingFloor.Floor after = ReadingFloor.of(payloads);
        return new Result(rows, after.valuePassMicros() < before.valuePassMicros() ? after : before,
                before.valuePassMicros(), after.valuePassMicros(), warmUp, idle);
    }

    private interface Load {
        LoadRun.Result run() throws Exception;
    }

    private static Row row(RelayProcess relay, String label, Load load) throws Exception {
        long cpuBefore = relay.cpuNanos();
        ThreadCpu.Snapshot threadsBefore = ThreadCpu.of(relay.pid());
        PrometheusScrape before = PrometheusScrape.of(relay.base());
        long archivedBefore = relay.archivedChunks();
        long derivedBefore = relay.derivedChunks();
        LoadRun.Result result = load.run();
        // the row's chunks all wait in their window now: what they hold
        PrometheusScrape waiting = PrometheusScrape.of(relay.base());
        double held = waiting.value(RelayMeter.DERIVATIONS_PENDING_BYTES.prometheusName())
                / Math.max(1, waiting.value(RelayMeter.DERIVATIONS_PENDING.prometheusName()));
        relay.awaitDerived(DRAIN);
        long cpu = relay.cpuNanos() - cpuBefore;
        Map<String, Long> byThread = ThreadCpu.of(relay.pid()).since(threadsBefore);
        PrometheusScrape after = PrometheusScrape.of(relay.base());
        long chunks = relay.archivedChunks() - archivedBefore;
        long underived = chunks - (relay.derivedChunks() - derivedBefore);
        double n = Math.max(1, chunks);
        return new Row(label, chunks, result.errors(), result.failures(), underived, cpu / 1e3 / n,
                delta(before, after, RelayMeter.DERIVATIONS_READ_BACK.prometheusName()) / n, held,
                delta(before, after, "jvm_gc_pause_seconds_count") / n, humongous(after) - humongous(before),
                delta(before, after, "jvm_gc_pause_seconds_sum") * 1e3 / n,
                delta(before, after, "jvm_gc_memory_allocated_bytes_total") / n, byThread);
    }

    /**
     * A fleet's steady state: chunks arrive at {@link #FLEET_RATE} for a window and then {@link #FLEET}, and the row
     * counts the relay's CPU over the second part only, when chunks arrive and finish their window at the same rate;
     * so each chunk counts once, receipt and derivation, as in a fleet that sends all day.
     */
    private static Row fleetRow(RelayProcess relay, LoadRun load) throws Exception {
        Duration settle = WINDOW.plusSeconds(5);
        CompletableFuture<LoadRun.Result> sending = CompletableFuture.supplyAsync(() -> {
            try {
                return load.paced(FLEET_RATE, settle.plus(FLEET));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(settle.toMillis());
        long cpuBefore = relay.cpuNanos();
        ThreadCpu.Snapshot threadsBefore = ThreadCpu.of(relay.pid());
        PrometheusScrape before = PrometheusScrape.of(relay.base());
        long archivedBefore = relay.archivedChunks();
        Thread.sleep(FLEET.toMillis());
        long cpu = relay.cpuNanos() - cpuBefore;
        Map<String, Long> byThread = ThreadCpu.of(relay.pid()).since(threadsBefore);
        PrometheusScrape after = PrometheusScrape.of(relay.base());
        double held = after.value(RelayMeter.DERIVATIONS_PENDING_BYTES.prometheusName())
                / Math.max(1, after.value(RelayMeter.DERIVATIONS_PENDING.prometheusName()));
        long chunks = relay.archivedChunks() - archivedBefore;
        LoadRun.Result result = sending.get();
        relay.awaitDerived(DRAIN);
        long underived = relay.archivedChunks() - relay.derivedChunks();
        double n = Math.max(1, chunks);
        return new Row(String.format(Locale.ROOT, "fleet, %.0f chunks/s", FLEET_RATE), chunks, result.errors(),
                result.failures(), underived, cpu / 1e3 / n,
                delta(before, after, RelayMeter.DERIVATIONS_READ_BACK.prometheusName()) / n, held,
                delta(before, after, "jvm_gc_pause_seconds_count") / n, humongous(after) - humongous(before),
                delta(before, after, "jvm_gc_pause_seconds_sum") * 1e3 / n,
                delta(before, after, "jvm_gc_memory_allocated_bytes_total") / n, byThread);
    }

    /**
     * Drives the relay at full load in slices until past {@link #MIN_WARM_UP} (the warm-up's first chunks are derived
     * by then) and the JIT compilers take under {@link #SETTLED_JIT_SHARE} of its CPU over a slice, at most
     * {@link #MAX_WARM_UP}.
     */
    private static String warmUp(RelayProcess relay, LoadRun load) throws Exception {
        long started = System.nanoTime();
        double share = 1;
        while (System.nanoTime() - started < MAX_WARM_UP.toNanos()) {
            long cpuBefore = relay.cpuNanos();
            ThreadCpu.Snapshot before = ThreadCpu.of(relay.pid());
            load.drive(false, CLIENTS, SLICE);
            Thread.sleep(1_000);
            long jit = ThreadCpu.of(relay.pid()).since(before).getOrDefault("JIT compiler", 0L);
            share = (double) jit / Math.max(1, relay.cpuNanos() - cpuBefore);
            if (share < SETTLED_JIT_SHARE && System.nanoTime() - started > MIN_WARM_UP.toNanos()) {
                break;
            }
        }
        return String.format(Locale.ROOT, "warm-up %.0f s, JIT %.1f%% of its last %d s",
                (System.nanoTime() - started) / 1e9, share * 100, SLICE.toSeconds());
    }

    private static double delta(PrometheusScrape before, PrometheusScrape after, String name) {
        return after.valueOrZeroBeforeFirstUse(name) - before.valueOrZeroBeforeFirstUse(name);
    }

    private static double humongous(PrometheusScrape scrape) {
        return scrape.byLabel("jvm_gc_pause_seconds_count", "cause").getOrDefault(HUMONGOUS, 0.0);
    }

    /** The report's lines for one SDK's rows against its floor. */
    static List<String> lines(String label, Result result) {
        ReadingFloor.Floor floor = result.floor();
        List<String> lines = new ArrayList<>();
        for (Row row : result.rows()) {
            lines.add(String.format(Locale.ROOT, "%-6s %-22s %7d %6d %9d %10.0f %9.2f %8.2f %8.2f %10.3f %9.0f"
                            + " %8.3f (%5.3f) %7.2f %7.2f", label, row.load(), row.chunks(), row.errors(),
                    row.underived(), row.cpuMicros(), row.cpuMicros() / floor.archivePassMicros(),
                    row.cpuMicros() / floor.valuePassMicros(), row.cpuMicros() / floor.tokenPassMicros(),
                    row.readBacks(), row.heldBytesPerWaiting(),
                    row.pauses(), row.humongousPauses() / Math.max(1, row.chunks()), row.pauseMillis(),
                    row.allocatedBytes() / floor.jsonBytes())
                    + (row.failures().isEmpty() ? "" : "  failures " + row.failures()));
        }
        lines.add(String.format(Locale.ROOT, "%-6s floor: archive pass %.0f us, value-decoding Jackson pass %.0f us"
                        + " (before the rows %.0f, after %.0f), token pass %.0f us per chunk (%.0f bytes of JSON),"
                        + " warmed %.0f s", label, floor.archivePassMicros(), floor.valuePassMicros(),
                result.valuePassBeforeMicros(), result.valuePassAfterMicros(), floor.tokenPassMicros(),
                floor.jsonBytes(), floor.warmUpSeconds()));
        lines.add(String.format(Locale.ROOT, "%-6s relay %s; idle after the rows: %.1f ms CPU a second", label,
                result.warmUp(), result.idleCpuMillisPerSecond()));
        for (Row row : result.rows()) {
            long n = Math.max(1, row.chunks());
            lines.add(String.format(Locale.ROOT, "%-6s %s, relay CPU per chunk by thread (us): %s", label, row.load(),
                    row.cpuByThread().entrySet().stream().filter(e -> e.getValue() > 0).limit(8)
                            .map(e -> e.getKey() + " " + Math.round(e.getValue() / 1e3 / n))
                            .collect(Collectors.joining(", "))));
        }
        return lines;
    }

    static String header() {
        return String.format("%-6s %-22s %7s %6s %9s %10s %9s %8s %8s %10s %9s %16s %7s %7s", "chunk", "load",
                "chunks", "errors", "underived", "CPU us", "x archive", "x value", "x token", "read-backs", "held B",
                "GC pauses (hum.)", "pause ms", "alloc/B");
    }
}
