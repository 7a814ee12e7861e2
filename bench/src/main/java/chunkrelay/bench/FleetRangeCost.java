package chunkrelay.bench;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.views.RangeReader;
import chunkrelay.storage.RollupObjects;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import chunkrelay.translate.view.ViewFilter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static chunkrelay.storage.TimeBuckets.nanos;

/**
 * Ranges cut on a second against the fleet's rate, the relay's shaded jar as shipped: an hour of a {@link RangeFleet}
 * of N processes written into the relay's archive before it starts, rolled up by the relay's own builder, then the
 * fleet live for a few minutes (chunks dated now, over HTTP); meanwhile, every 20 s, the page's default range,
 * {@code now-5m}, {@code now-1h}, {@code now-6h} and a one-second window, each from and to on a second inside a
 * minute: status, wall time, the relay's CPU, samples against those sent. Then the relay's heap and its partials, the
 * rollup objects by tier, and, in this process over the archive the relay left: the floor (one minute rollup of this
 * fleet read and decoded) and where a settled hour's answer goes (reads, decode, merge).
 */
final class FleetRangeCost {
    static final String HEAP = "600m";
    private static final Duration ASK_EVERY = Duration.ofSeconds(20);
    private static final int CLIENTS = 4;
    private static final int FLOOR_ROUNDS = 9;
    private static final String AUTH = "Sentry sentry_version=7, sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    record Ask(String name, int status, double wallMillis, double relayCpuMillis, long samples, long expected) {
    }

    /** Reading, decoding and merging the minute rollups of a settled hour, against the reader's answer of it. */
    record Breakdown(int minutes, double readMillis, double decodeMillis, double mergeMillis, double answerMillis,
                     int rollupsRead, int chunksRead, boolean exact) {
    }

    record Result(int processes, int backfilled, double backfillSeconds, double rollupSeconds, int live,
                  int refused, List<Ask> asks, double heapMib, double openMib, Map<Character, long[]> objects,
                  double floorMillis, double floorCpuMillis, long minuteBytes, Breakdown hour) {
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<long[]> sent = Collections.synchronizedList(new ArrayList<>());
    private RelayProcess relay;

    static Result run(Path jar, Path work, int processes, Duration live) throws Exception {
        return new FleetRangeCost().measure(jar, work, processes, live);
    }

    private Result measure(Path jar, Path work, int processes, Duration live) throws Exception {
        Path directory = work.resolve("archive");
        Files.createDirectories(directory);
        long hourEnd = Math.floorDiv(nanos(Instant.now()), RangeFleet.MINUTE) * RangeFleet.MINUTE;
        long backfillStart = System.nanoTime();
        RangeFleet fleet = new RangeFleet(processes);
        List<long[]> backfill = fleet.starts(hourEnd - 60 * RangeFleet.MINUTE, hourEnd);
        try (RangeFleet.Archive archive = fleet.open(directory)) {
            archive.backfill(backfill);
        }
        sent.addAll(backfill);
        double backfillSeconds = (System.nanoTime() - backfillStart) / 1e9;
        List<Ask> asks = new ArrayList<>();
        int refused;
        double heap;
        double open;
        double rollupSeconds;
        try (RelayProcess started = RelayProcess.startAsShipped(jar, HEAP, work)) {
            relay = started;
            long building = System.nanoTime();
            awaitMinutes(60, Duration.ofMinutes(15));
            rollupSeconds = (System.nanoTime() - building) / 1e9;
            refused = sendLive(fleet, live, asks);
            PrometheusScrape scrape = PrometheusScrape.of(relay.base());
            heap = scrape.value("jvm_memory_used_bytes", "area", "heap") / 1048576.0;
            open = scrape.value("relay_rollups_open_bytes") / 1048576.0;
        }
        try (RangeFleet.Archive archive = fleet.open(directory)) {
            long middle = hourEnd - 30 * RangeFleet.MINUTE;
            RollupObjects.Version minute = archive.minutes(middle, middle + RangeFleet.MINUTE).get(middle);
            double[] floor = floor(archive.rollups(), minute);
            Breakdown hour = breakdown(archive, hourEnd - 59 * RangeFleet.MINUTE, hourEnd);
            return new Result(processes, backfill.size(), backfillSeconds, rollupSeconds, sent.size()
                    - backfill.size(), refused, asks, heap, open, objects(directory), floor[0], floor[1],
                    archive.rollups().read(minute).orElseThrow().length, hour);
        }
    }

    /** Waits until the relay's builder has written {@code minutes} minute rollups, and one more round. */
    private void awaitMinutes(int minutes, Duration timeout) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (relay.rollupObjects().getOrDefault('m', 0L) < minutes) {
            if (System.nanoTime() > until || !relay.alive()) {
                throw new IllegalStateException("the relay's builder wrote " + relay.rollupObjects()
                        + " rollups within " + timeout + "; log: " + relay.tail());
            }
            Thread.sleep(1_000);
        }
        Thread.sleep(20_000);
    }

    /** The fleet live for {@code length}, the ranges asked from its second minute on; chunks not answered 200. */
    private int sendLive(RangeFleet fleet, Duration length, List<Ask> asks) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        ExecutorService asker = Executors.newSingleThreadExecutor();
        Future<?> asking = null;
        int[] refused = {0};
        long start = nanos(Instant.now());
        long end = start + length.toNanos();
        long nextAsk = start + Duration.ofSeconds(60).toNanos();
        long[] next = new long[fleet.processes];
        for (int p = 0; p < fleet.processes; p++) {
            next[p] = Math.floorDiv(start, RangeFleet.CHUNK_EVERY) * RangeFleet.CHUNK_EVERY + fleet.offset(p)
                    + RangeFleet.CHUNK_EVERY;
        }
        while (nanos(Instant.now()) < end) {
            long now = nanos(Instant.now());
            for (int p = 0; p < fleet.processes; p++) {
                if (next[p] <= now) {
                    // a chunk sent as it ends: its first sample 10 s ago
                    long chunkStart = next[p] - RangeFleet.CHUNK_EVERY;
                    int profiler = p;
                    clients.execute(() -> {
                        if (post(fleet.chunk(profiler, chunkStart))) {
                            sent.add(new long[] {profiler, chunkStart});
                        } else {
                            synchronized (refused) {
                                refused[0]++;
                            }
                        }
                    });
                    next[p] += RangeFleet.CHUNK_EVERY;
                }
            }
            if (now >= nextAsk && (asking == null || asking.isDone())) {
                // on a thread of its own, so that a slow answer does not hold the fleet back; a round still
                // answering when the next is due skips it
                asking = asker.submit(() -> askRanges(now, asks));
                nextAsk = now + ASK_EVERY.toNanos();
            }
            Thread.sleep(20);
        }
        clients.shutdown();
        asker.shutdown();
        clients.awaitTermination(2, TimeUnit.MINUTES);
        asker.awaitTermination(10, TimeUnit.MINUTES);
        if (asking != null) {
            asking.get();
        }
        return refused[0];
    }

    /** The five ranges, {@code to} now (on a second inside its minute) and {@code from} on the same second. */
    private Void askRanges(long now, List<Ask> asks) throws Exception {
        long to = Math.floorDiv(now, RangeFleet.SECOND);
        to -= Math.floorMod(to, 60) == 0 ? 1 : 0;
        asks.add(ask("default range", "", Math.floorDiv(to - 3_600, 60) * 60, to + 1));
        asks.add(ask("now-5m", to - 300, to));
        asks.add(ask("now-1h", to - 3_600, to));
        asks.add(ask("now-6h", to - 21_600, to));
        asks.add(ask("1 s, 90 s ago", to - 90, to - 89));
        return null;
    }

    private Ask ask(String name, long from, long to) throws Exception {
        return ask(name, "&from=" + from + "&to=" + to, from, to);
    }

    private Ask ask(String name, String range, long from, long to) throws Exception {
        long cpu = relay.cpuNanos();
        long started = System.nanoTime();
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(relay.base()
                        + "/api/v1/projects/" + RangeFleet.PROJECT + "/profile?format=pprof" + range))
                .timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        double wall = (System.nanoTime() - started) / 1e6;
        double relayCpu = (relay.cpuNanos() - cpu) / 1e6;
        long samples = response.statusCode() == 200 ? PprofSampleCount.of(response.body()) : -1;
        List<long[]> chunks;
        synchronized (sent) {
            chunks = new ArrayList<>(sent);
        }
        return new Ask(name, response.statusCode(), wall, relayCpu, samples,
                RangeFleet.samplesIn(chunks, from * RangeFleet.SECOND, to * RangeFleet.SECOND));
    }

    private boolean post(byte[] chunk) {
        try {
            return client.send(HttpRequest.newBuilder(relay.base().resolve("/api/" + RangeFleet.PROJECT
                                    + "/envelope/")).timeout(Duration.ofSeconds(60))
                            .header("Content-Type", "application/x-sentry-envelope")
                            .header("X-Sentry-Auth", AUTH)
                            .POST(HttpRequest.BodyPublishers.ofByteArray(FleetChunks.envelope(chunk))).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Median wall and CPU of reading and decoding one minute rollup, after warm-up rounds. */
    private static double[] floor(RollupObjects rollups, RollupObjects.Version minute) {
        double[] wall = new double[FLOOR_ROUNDS];
        double[] cpu = new double[FLOOR_ROUNDS];
        for (int round = -3; round < FLOOR_ROUNDS; round++) {
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            long wallStart = System.nanoTime();
            RollupCodec.read(rollups.read(minute).orElseThrow());
            if (round >= 0) {
                wall[round] = (System.nanoTime() - wallStart) / 1e6;
                cpu[round] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e6;
            }
        }
        return new double[] {Medians.of(wall), Medians.of(cpu)};
    }

    /**
     * A range {@code [from, to)} on whole minutes of the backfill, settled: its minute rollups read, decoded and merged
     * one by one (each phase summed), then the reader's answer of it (what it read, its time, its samples against those
     * sent).
     */
    private Breakdown breakdown(RangeFleet.Archive fleet, long from, long to) {
        Map<Long, RollupObjects.Version> minutes = fleet.minutes(from, to);
        long read = 0;
        long decode = 0;
        long merge = 0;
        ProfileMerger merger = Rollup.merger(from, to, 60);
        for (RollupObjects.Version version : minutes.values()) {
            long t0 = System.nanoTime();
            byte[] bytes = fleet.rollups().read(version).orElseThrow();
            long t1 = System.nanoTime();
            Rollup rollup = RollupCodec.read(bytes);
            long t2 = System.nanoTime();
            merger.add(rollup);
            merge += System.nanoTime() - t2;
            decode += t2 - t1;
            read += t1 - t0;
        }
        merger.result();
        RangeReader reader = fleet.reader();
        long started = System.nanoTime();
        RangeReader.Answer answer = reader.merge(Long.parseLong(RangeFleet.PROJECT), ViewFilter.between(from, to),
                null);
        double answerMillis = (System.nanoTime() - started) / 1e6;
        long expected = RangeFleet.samplesIn(sent, from, to);
        return new Breakdown(minutes.size(), read / 1e6, decode / 1e6, merge / 1e6, answerMillis,
                answer.rollupsRead(), answer.chunksRead(), answer.profile().sampleCount() == expected);
    }

    /** Rollup objects in the archive by tier letter: how many, and their stored bytes. */
    private static Map<Character, long[]> objects(Path directory) {
        Map<Character, long[]> tiers = new TreeMap<>();
        try (Stream<Path> files = Files.walk(directory)) {
            files.filter(Files::isRegularFile).filter(file -> file.toString().contains("/rollups/")).forEach(file -> {
                long[] counts = tiers.computeIfAbsent(file.getFileName().toString().charAt(0), k -> new long[2]);
                counts[0]++;
                counts[1] += file.toFile().length();
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tiers;
    }

    /** The report's lines for one fleet size. */
    static List<String> lines(Result r) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(java.util.Locale.ROOT, "%d processes (%.0f chunks/s): an hour of %d chunks written in"
                        + " %.0f s and rolled up by the relay in %.0f s; live %d chunks, %d not answered 200",
                r.processes(), r.processes() / 10.0, r.backfilled(), r.backfillSeconds(), r.rollupSeconds(),
                r.live(), r.refused()));
        lines.add(String.format(java.util.Locale.ROOT, "  floor: one minute rollup of this fleet (%d bytes) read and"
                + " decoded in %.1f ms (CPU %.1f ms)", r.minuteBytes(), r.floorMillis(), r.floorCpuMillis()));
        Map<String, List<Ask>> byName = new LinkedHashMap<>();
        r.asks().forEach(a -> byName.computeIfAbsent(a.name(), k -> new ArrayList<>()).add(a));
        for (Map.Entry<String, List<Ask>> entry : byName.entrySet()) {
            Map<Integer, Long> statuses = new TreeMap<>();
            entry.getValue().forEach(a -> statuses.merge(a.status(), 1L, Long::sum));
            double[] walls = entry.getValue().stream().mapToDouble(Ask::wallMillis).sorted().toArray();
            double[] cpus = entry.getValue().stream().mapToDouble(Ask::relayCpuMillis).sorted().toArray();
            long over = entry.getValue().stream().filter(a -> a.status() == 200 && a.samples() > a.expected())
                    .count();
            lines.add(String.format(java.util.Locale.ROOT, "  %-14s statuses %-14s wall median %6.0f ms max %6.0f ms"
                            + " (%5.1fx / %5.1fx the floor), relay CPU median %6.0f ms%s", entry.getKey(), statuses,
                    Medians.of(walls), walls[walls.length - 1], Medians.of(walls) / r.floorMillis(),
                    walls[walls.length - 1] / r.floorMillis(), Medians.of(cpus),
                    over > 0 ? ", " + over + " answers above the samples sent" : ""));
        }
        Breakdown h = r.hour();
        lines.add(String.format(java.util.Locale.ROOT, "  the backfill's last 59 minutes (settled, whole minutes, in"
                        + " this process): its %d minute rollups read %.0f ms, decoded %.0f"
                        + " ms, merged %.0f ms; the reader's answer %.0f ms (%.1fx the floor) from %d rollups and %d"
                        + " chunks, %s", h.minutes(), h.readMillis(), h.decodeMillis(), h.mergeMillis(),
                h.answerMillis(), h.answerMillis() / r.floorMillis(), h.rollupsRead(), h.chunksRead(),
                h.exact() ? "exact" : "NOT the samples sent"));
        StringBuilder objects = new StringBuilder();
        r.objects().forEach((tier, counts) -> objects.append(String.format(java.util.Locale.ROOT, " %s %d (%.1f MiB)",
                tier, counts[0], counts[1] / 1048576.0)));
        lines.add(String.format(java.util.Locale.ROOT, "  relay heap used at the end %.0f MiB, partials of open minutes"
                + " %.1f MiB; rollup objects by tier letter:%s", r.heapMib(), r.openMib(), objects));
        long[] detail = r.objects().get('s');
        lines.add(detail == null ? "  per-second detail: no s{HHmm} objects in this build"
                : String.format(java.util.Locale.ROOT, "  per-second detail: %d objects, %.0f bytes per chunk",
                detail[0], (double) detail[1] / (r.backfilled() + r.live())));
        return lines;
    }
}
