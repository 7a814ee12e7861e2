package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.envelope.testing.PrometheusScrape;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleBinaryOperator;

import static chunkrelay.storage.TimeBuckets.nanos;

/**
 * A live fleet sent to the relay's shaded jar as shipped (600 MiB heap, 30 s link window, rollups every 10 s): the
 * recorded Java chunk as {@code processes} profilers each ending a 10 s chunk every 10 s, dated now. Every 20 s the
 * ranges of issue 48's acceptance are asked ({@link #askAll}), timed, and the profiles counted against the samples
 * sent; when the fleet stops and every chunk is derived, the run's range, and one from a second inside it, must hold
 * exactly the samples sent in it. The floor is the same range
 * asked again once every minute of it has settled into rollups and nothing is sent: what the relay's aggregates
 * cost to answer, so that the ratio shows what the open minutes add.
 *
 * <p>Then a backfill: six hours of a four-profiler fleet sent as fast as the relay takes it into minutes settled long
 * ago, the six hours asked every two seconds, from when every chunk is derived, while the rollup builder catches
 * up: each answer is 200 and exact, or 503 with {@code Retry-After}; a 400 is a failure.
 */
final class LiveFleetViews {
    static final String HEAP = "600m";
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long CHUNK_EVERY = 10 * SECOND;
    private static final Duration ASK_EVERY = Duration.ofSeconds(20);
    /** Chunks count from receipt, so the first ask comes one ask period after the fleet starts. */
    private static final Duration FIRST_ASK = ASK_EVERY;
    /** The relay may answer 503 with {@code Retry-After} in the first minute of its life, and not after. */
    private static final long WARMING_UP = MINUTE;
    /** A chunk acknowledged this long before an ask must be in its answer (issue 48: "acknowledged 5 s ago"). */
    private static final Duration SETTLING = Duration.ofSeconds(5);
    private static final int CLIENTS = 4;
    private static final int BACKFILL_PROFILERS = 4;
    private static final long BACKFILL_CADENCE = 11 * SECOND;

    /**
     * One ask: its range, status, wall time, the relay's CPU meanwhile (the fleet's ingest included), and its samples
     * against those sent.
     */
    record Ask(String name, int status, double wallMillis, double relayCpuMillis, long samples, long expected,
               long relayAgeNanos, long posted, String outOfBounds) {
        boolean exact() {
            return status == 200 && samples == expected;
        }

        /**
         * While the fleet sends: every sample of the chunks acknowledged 5 s before the ask or earlier, none beyond
         * those posted by its answer (chunks count from receipt, so one in flight may be in it).
         */
        boolean withinBounds() {
            return status != 200 || expected < 0 || (samples >= expected && samples <= posted);
        }

        /** 200, or 503 while the relay is in its first minute. */
        boolean answered() {
            return status == 200 || (status == 503 && relayAgeNanos < WARMING_UP);
        }
    }

    /** A fleet size's run: its asks while it sent, the run's range afterwards, and the floor. */
    record Steady(int processes, int chunks, int refusedChunks, List<Ask> asks, Ask wholeRun, Ask raggedRun,
                  Ask floor, List<String> states) {
    }

    /** The backfill: asks while it was sent (not judged for exactness: chunks wait in their window), then after. */
    record Backfill(int chunks, double sendSeconds, List<Ask> whileSending, List<Ask> asks, double firstExactSeconds) {
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final FleetChunk fleet = new FleetChunk();
    private final SdkRequest recorded = Fixtures.sdkRequest("java-8.43.0/001");
    /** Every chunk answered 200: its shift of the template's times. */
    private final List<Long> shifts = new ArrayList<>();
    /** When each of those was answered ({@link System#nanoTime}), in the same order. */
    private final List<Long> answeredAt = new ArrayList<>();
    /** Every chunk posted, before its answer. */
    private final List<Long> posted = new ArrayList<>();
    /** The relay's state at each ask round: seconds into the run, then what {@link #state()} reads. */
    private final List<String> states = new ArrayList<>();
    private RelayProcess relay;
    private long relayStarted;

    static Steady steady(Path jar, Path work, int processes, Duration length) throws Exception {
        return new LiveFleetViews().runSteady(jar, work, processes, length);
    }

    static Backfill backfill(Path jar, Path work, Duration hours) throws Exception {
        return new LiveFleetViews().runBackfill(jar, work, hours);
    }

    private Steady runSteady(Path jar, Path work, int processes, Duration length) throws Exception {
        List<String> profilers = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            profilers.add(hex());
        }
        long duration = fleet.lastSampleNanos() - fleet.firstSampleNanos();
        List<Ask> asks = new ArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        relayStarted = System.nanoTime();
        try (RelayProcess started = RelayProcess.startAsShipped(jar, HEAP, work)) {
            relay = started;
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            long runStart = nanos(Instant.now());
            long nextAsk = runStart + FIRST_ASK.toNanos();
            int sent = 0;
            // profiler p ends a chunk every 10 s, p tenths of the fleet's period after the one before
            long[] next = new long[processes];
            for (int p = 0; p < processes; p++) {
                next[p] = runStart + CHUNK_EVERY * p / processes;
            }
            long end = runStart + length.toNanos();
            while (nanos(Instant.now()) < end) {
                long now = nanos(Instant.now());
                for (int p = 0; p < processes; p++) {
                    if (next[p] <= now) {
                        long shift = next[p] - duration - fleet.firstSampleNanos();
                        String profiler = profilers.get(p);
                        clients.execute(() -> {
                            if (!post(profiler, "live@1", shift)) {
                                refused.incrementAndGet();
                            }
                        });
                        sent++;
                        next[p] += CHUNK_EVERY;
                    }
                }
                if (now >= nextAsk) {
                    askAll(asks, Math.floorDiv(runStart, SECOND) + 7, Math.floorDiv(now, SECOND));
                    nextAsk += ASK_EVERY.toNanos();
                }
                Thread.sleep(20);
            }
            clients.shutdown();
            clients.awaitTermination(2, TimeUnit.MINUTES);
            relay.awaitDerived(Duration.ofMinutes(3));
            long from = Math.floorDiv(runStart - 2 * CHUNK_EVERY, MINUTE) * MINUTE / SECOND;
            long to = Math.floorDiv(nanos(Instant.now()), SECOND) + 1;
            states.add("after the fleet stopped, every chunk derived: " + state());
            Ask wholeRun = ask("the run's range, every chunk derived", "from=" + from + "&to=" + to, from, to);
            long ragged = Math.floorDiv(runStart, SECOND) + 7;
            Ask raggedRun = ask("from 7 s after the start, every chunk derived", "from=" + ragged + "&to=" + to,
                    ragged, to);
            // the floor: the same range once every minute of it has settled and been rolled up, nothing sent
            long settled = nanos(Instant.now()) + MINUTE + Duration.ofSeconds(45 + 20).toNanos();
            while (nanos(Instant.now()) < settled) {
                Thread.sleep(500);
            }
            Ask floor = ask("the run's range, settled (floor)", "from=" + from + "&to=" + to, from, to);
            return new Steady(processes, sent, refused.get(), asks, wholeRun, raggedRun, floor, List.copyOf(states));
        }
    }

    private Backfill runBackfill(Path jar, Path work, Duration hours) throws Exception {
        List<String> profilers = new ArrayList<>();
        for (int p = 0; p < BACKFILL_PROFILERS; p++) {
            profilers.add(hex());
        }
        List<Ask> asks = new ArrayList<>();
        relayStarted = System.nanoTime();
        try (RelayProcess started = RelayProcess.startAsShipped(jar, HEAP, work)) {
            relay = started;
            long now = nanos(Instant.now());
            long start = Math.floorDiv(now - hours.toNanos() - 10 * MINUTE, MINUTE) * MINUTE;
            long end = start + hours.toNanos();
            List<long[]> chunks = new ArrayList<>();
            for (long at = start; at + CHUNK_EVERY < end; at += BACKFILL_CADENCE) {
                for (int p = 0; p < BACKFILL_PROFILERS; p++) {
                    chunks.add(new long[] {p, at + p * (BACKFILL_CADENCE / BACKFILL_PROFILERS)
                            - fleet.firstSampleNanos()});
                }
            }
            long sendStart = System.nanoTime();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            AtomicInteger failed = new AtomicInteger();
            for (long[] chunk : chunks) {
                String profiler = profilers.get((int) chunk[0]);
                clients.execute(() -> {
                    if (!post(profiler, "backfill@1", chunk[1])) {
                        failed.incrementAndGet();
                    }
                });
            }
            clients.shutdown();
            long from = start / SECOND;
            long to = end / SECOND;
            List<Ask> whileSending = new ArrayList<>();
            while (!clients.awaitTermination(2, TimeUnit.SECONDS)) {
                whileSending.add(ask("backfill while sent", "from=" + from + "&to=" + to, from, to));
            }
            double sendSeconds = (System.nanoTime() - sendStart) / 1e9;
            if (failed.get() > 0) {
                throw new IllegalStateException(failed.get() + " backfilled chunks not answered 200");
            }
            // asked once every chunk is derived (the link window after the last), so that a 200 must be exact
            relay.awaitDerived(Duration.ofMinutes(3));
            long asking = System.nanoTime();
            double firstExact = -1;
            while ((System.nanoTime() - asking) < Duration.ofMinutes(10).toNanos()) {
                Ask ask = ask("backfill, " + hours.toHours() + " h", "from=" + from + "&to=" + to, from, to);
                asks.add(ask);
                if (ask.status() == 400 || (ask.status() == 200 && !ask.exact())) {
                    break;
                }
                if (ask.exact()) {
                    firstExact = (System.nanoTime() - asking) / 1e9;
                    break;
                }
                Thread.sleep(2_000);
            }
            return new Backfill(chunks.size(), sendSeconds, whileSending, asks, firstExact);
        }
    }

    /** Sends one chunk; whether it answered 200. */
    private boolean post(String profilerId, String release, long shift) {
        byte[] envelope = FleetChunk.envelope(hex(), fleet.rewrite(profilerId, hex(), release, shift));
        synchronized (posted) {
            posted.add(shift);
        }
        try {
            if (client.send(FleetChunk.post(relay.base(), recorded, envelope),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                synchronized (shifts) {
                    shifts.add(shift);
                    answeredAt.add(System.nanoTime());
                }
                return true;
            }
        } catch (Exception e) {
            // counted by the caller
        }
        return false;
    }

    /**
     * The ranges people type, as issue 48 asks them: the page's default range, the last five minutes cut on the
     * second ({@code now-300}), a range from a second inside the fleet's data to now, the last hour's functions and the
     * last fifteen minutes' timeline in one-second steps.
     */
    private void askAll(List<Ask> asks, long raggedFrom, long to) throws Exception {
        states.add(String.format(Locale.ROOT, "%4.0f s: ", (System.nanoTime() - relayStarted) / 1e9) + state());
        asks.add(ask("default range", "", Math.floorDiv(to - 3_600, 60) * 60, to));
        asks.add(ask("now-300 to now", "from=" + (to - 300) + "&to=" + to, to - 300, to));
        asks.add(ask("start+7 s to now", "from=" + raggedFrom + "&to=" + to, raggedFrom, to));
        asks.add(askUncounted("now-1h functions", "functions?from=" + (to - 3_600) + "&to=" + to));
        asks.add(askUncounted("now-15m timeline, 1 s", "timeline?step=1s&from=" + (to - 900) + "&to=" + to));
    }

    /** Asks a range's pprof profile; its samples against those sent so far whose window has passed. */
    private Ask ask(String name, String range, long fromSeconds, long toSeconds) throws Exception {
        return timed(name, "profile?format=pprof" + (range.isEmpty() ? "" : "&" + range), fromSeconds, toSeconds,
                range.isEmpty());
    }

    /** Asks another view of a range: its status and time, its samples not counted. */
    private Ask askUncounted(String name, String pathAndQuery) throws Exception {
        return timed(name, pathAndQuery, 0, -1, false);
    }

    /**
     * @param relayPicksEnd the range's end is the relay's now when it answers (the default range), not
     *                      {@code toSeconds}: the samples posted are counted up to the answer's return
     */
    private Ask timed(String name, String pathAndQuery, long fromSeconds, long toSeconds, boolean relayPicksEnd)
            throws Exception {
        boolean counted = toSeconds >= 0;
        long acknowledged = counted ? countAnsweredBefore(System.nanoTime() - SETTLING.toNanos(), fromSeconds,
                toSeconds) : -1;
        long cpu = relay.cpuNanos();
        long started = System.nanoTime();
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(relay.base()
                        + "/api/v1/projects/1/" + pathAndQuery))
                .timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        double wall = (System.nanoTime() - started) / 1e6;
        double relayCpu = (relay.cpuNanos() - cpu) / 1e6;
        long samples = counted && response.statusCode() == 200 ? PprofSampleCount.of(response.body()) : -1;
        long postedTo = relayPicksEnd ? Math.floorDiv(System.currentTimeMillis(), 1000) + 1 : toSeconds;
        Ask ask = new Ask(name, response.statusCode(), wall, relayCpu, samples, acknowledged,
                System.nanoTime() - relayStarted, counted ? count(posted, fromSeconds, postedTo) : -1, "");
        if (ask.withinBounds()) {
            return ask;
        }
        return new Ask(name, ask.status(), wall, relayCpu, samples, acknowledged, ask.relayAgeNanos(), ask.posted(),
                outOfBounds(fromSeconds, toSeconds, started - SETTLING.toNanos(), ask.relayAgeNanos()));
    }

    /**
     * Where an answer's samples fell out of bounds: its range asked again minute by minute right after it, each
     * against the chunks acknowledged before the same moment as the ask and those posted so far (a minute out of
     * bounds again is so for a reason that lasts; none says the answer caught a moment, such as a minute between its
     * partial and its rollup).
     */
    private String outOfBounds(long fromSeconds, long toSeconds, long acknowledgedBefore, long relayAge)
            throws Exception {
        StringBuilder minutes = new StringBuilder();
        long askedAt = System.currentTimeMillis() / 1000;
        for (long minute = Math.floorDiv(fromSeconds, 60) * 60; minute < toSeconds; minute += 60) {
            long from = Math.max(minute, fromSeconds);
            long to = Math.min(minute + 60, toSeconds);
            long expected = countAnsweredBefore(acknowledgedBefore, from, to);
            long sent = count(posted, from, to);
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(relay.base()
                            + "/api/v1/projects/1/profile?format=pprof&from=" + from + "&to=" + to))
                    .timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            long samples = response.statusCode() == 200 ? PprofSampleCount.of(response.body()) : -1;
            if (samples < expected || samples > sent) {
                minutes.append(String.format(Locale.ROOT, " [%d..%d, %d s before now: %s %d, acknowledged %d,"
                                + " posted %d]", from, to, askedAt - minute,
                        response.statusCode() == 200 ? "200," : response.statusCode() + ",", samples, expected, sent));
            }
        }
        return String.format(Locale.ROOT, "range %d..%d at relay age %.0f s; minutes out of bounds when asked again:%s",
                fromSeconds, toSeconds, relayAge / 1e9, minutes.length() == 0 ? " none" : minutes);
    }

    /** The samples in {@code [from, to)} of the chunks answered 200 before {@code nanoTime}. */
    private long countAnsweredBefore(long nanoTime, long fromSeconds, long toSeconds) {
        long count = 0;
        synchronized (shifts) {
            for (int i = 0; i < shifts.size(); i++) {
                if (answeredAt.get(i) < nanoTime) {
                    count += fleet.samplesIn(shifts.get(i), fromSeconds * SECOND, toSeconds * SECOND);
                }
            }
        }
        return count;
    }

    /** The samples in {@code [from, to)} of the chunks sent with the given shifts. */
    private long count(List<Long> chunks, long fromSeconds, long toSeconds) {
        long count = 0;
        synchronized (chunks) {
            for (long shift : chunks) {
                count += fleet.samplesIn(shift, fromSeconds * SECOND, toSeconds * SECOND);
            }
        }
        return count;
    }

    /**
     * The relay's partials of open minutes, chunks waiting for their window, late chunks (derived after their minute's
     * rollup), heap and CPU, from its {@code /prometheus}; and this process's CPU, which shares the machine (the
     * fleet's chunks written and posted, the answers counted).
     */
    private String state() {
        try {
            var scrape = PrometheusScrape.of(relay.base());
            return String.format(Locale.ROOT, "open minutes %.0f holding %.1f MiB (chunks left out at receipt %.0f,"
                            + " derived %.0f), chunks in their window %.0f, late"
                            + " chunks %.0f, heap used %.0f MiB, GC pauses %.1f s (longest of the last minute %.0f ms),"
                            + " relay CPU %.0f s, bench CPU %.0f s",
                    scrape.valueOrZeroBeforeFirstUse("relay_rollups_open_minutes"),
                    scrape.valueOrZeroBeforeFirstUse("relay_rollups_open_bytes") / (1 << 20),
                    scrape.valueOrZeroBeforeFirstUse("relay_rollups_open_left_out_total", "when", "receipt"),
                    scrape.valueOrZeroBeforeFirstUse("relay_rollups_open_left_out_total", "when", "derived"),
                    scrape.valueOrZeroBeforeFirstUse("relay_derivations_pending"),
                    scrape.valueOrZeroBeforeFirstUse("relay_rollups_late_chunks"),
                    scrape.value("jvm_memory_used_bytes", "area", "heap") / (1 << 20),
                    gcPauses(scrape, "jvm_gc_pause_seconds_sum", Double::sum),
                    gcPauses(scrape, "jvm_gc_pause_seconds_max", Math::max) * 1e3, relay.cpuNanos() / 1e9,
                    ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                            .getProcessCpuTime() / 1e9);
        } catch (RuntimeException e) {
            return "no scrape: " + e.getMessage();
        }
    }

    /** A GC pause meter over its series (one per collector action and cause), summed or the largest. */
    private static double gcPauses(PrometheusScrape scrape, String name,
                                   DoubleBinaryOperator combine) {
        return scrape.samples().stream().filter(sample -> sample.name().equals(name))
                .mapToDouble(PrometheusScrape.Sample::value).reduce(combine).orElse(0);
    }

    /** The report's lines for a steady run. */
    static List<String> lines(Steady run) {
        List<String> lines = new ArrayList<>();
        Map<String, List<Ask>> byName = new TreeMap<>();
        run.asks().forEach(a -> byName.computeIfAbsent(a.name(), k -> new ArrayList<>()).add(a));
        lines.add(String.format(Locale.ROOT, "%d processes (%.0f chunks/s): %d chunks sent, %d not answered 200",
                run.processes(), run.processes() / 10.0, run.chunks(), run.refusedChunks()));
        for (Map.Entry<String, List<Ask>> entry : byName.entrySet()) {
            double[] walls = entry.getValue().stream().filter(a -> a.status() == 200).mapToDouble(Ask::wallMillis)
                    .sorted().toArray();
            Map<Integer, Long> statuses = new TreeMap<>();
            entry.getValue().forEach(a -> statuses.merge(a.status(), 1L, Long::sum));
            double[] cpus = entry.getValue().stream().filter(a -> a.status() == 200)
                    .mapToDouble(Ask::relayCpuMillis).sorted().toArray();
            lines.add(String.format(Locale.ROOT, "  %-16s %2d asks, statuses %s; 200s in median %.0f ms, max %.0f ms"
                            + " (%.1fx and %.1fx the floor); relay CPU meanwhile median %.0f ms", entry.getKey(),
                    entry.getValue().size(), statuses, median(walls), max(walls),
                    median(walls) / run.floor().wallMillis(), max(walls) / run.floor().wallMillis(), median(cpus)));
        }
        long outOfBounds = run.asks().stream().filter(a -> !a.withinBounds()).count();
        lines.add("  asks whose samples were not between those acknowledged 5 s before and those posted by the answer: "
                + outOfBounds);
        run.asks().stream().filter(a -> !a.withinBounds()).forEach(a -> lines.add(String.format(Locale.ROOT,
                "    %s: %d samples, acknowledged %d, posted %d; %s", a.name(), a.samples(), a.expected(),
                a.posted(), a.outOfBounds())));
        // when the slow ones came: the relay's first minute (compilers still at work) or steady load
        run.asks().stream().filter(a -> a.status() == 200 && a.wallMillis() > 1_000).forEach(a -> lines.add(
                String.format(Locale.ROOT, "    over 1 s: %s at relay age %.0f s, %.0f ms (relay CPU meanwhile %.0f ms)",
                        a.name(), a.relayAgeNanos() / 1e9, a.wallMillis(), a.relayCpuMillis())));
        run.states().forEach(state -> lines.add("  relay at " + state));
        for (Ask ask : List.of(run.wholeRun(), run.raggedRun(), run.floor())) {
            lines.add(String.format(Locale.ROOT, "  %-40s %d in %.0f ms (relay CPU %.0f ms), %d samples (%s)",
                    ask.name(), ask.status(), ask.wallMillis(), ask.relayCpuMillis(), ask.samples(),
                    ask.exact() ? "exact" : "expected " + ask.expected()));
        }
        return lines;
    }

    /** The report's lines for the backfill. */
    static List<String> lines(Backfill run) {
        Map<Integer, Long> sending = new TreeMap<>();
        run.whileSending().forEach(a -> sending.merge(a.status(), 1L, Long::sum));
        double[] walls = run.whileSending().stream().mapToDouble(Ask::wallMillis).sorted().toArray();
        Map<Integer, Long> statuses = new TreeMap<>();
        run.asks().forEach(a -> statuses.merge(a.status(), 1L, Long::sum));
        Ask last = run.asks().get(run.asks().size() - 1);
        return List.of(String.format(Locale.ROOT, "%d chunks sent in %.0f s, the six hours asked every 2 s meanwhile:"
                        + " statuses %s, median %.0f ms, max %.0f ms", run.chunks(), run.sendSeconds(), sending,
                median(walls), max(walls)), String.format(Locale.ROOT, "once every chunk was derived, asked every 2 s:"
                        + " statuses %s; first exact 200 after %.0f s, in %.0f ms (%d samples, %s)", statuses,
                run.firstExactSeconds(), last.wallMillis(), last.samples(),
                last.exact() ? "exact" : "expected " + last.expected()));
    }

    static boolean exact(Steady run) {
        return run.wholeRun().exact() && run.raggedRun().exact() && run.floor().exact()
                && run.asks().stream().allMatch(Ask::withinBounds);
    }

    private static double median(double[] sorted) {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }

    private static String hex() {
        return UUID.randomUUID().toString().replace("-", "");
    }
}
