package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.ViewFilter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static chunkrelay.storage.TimeBuckets.nanos;

/**
 * The recorded Java chunk as a fleet, sent to the relay's shaded jar in its shipped configuration: 20 profilers of
 * two releases, 180 chunks each (10 s of samples every 11 s: 33 minutes ending about now), then the first answer of
 * each view over the fleet timed (wall time of the request, the relay's CPU meanwhile) and its sample count checked
 * exactly against the count computed here from the chunks sent.
 */
final class FleetRelayViews {
    static final int PROFILERS = 20;
    static final int CHUNKS_PER_PROFILER = 180;
    static final long CADENCE_NANOS = 11_000_000_000L;
    static final String HEAP = "600m";
    private static final int CLIENTS = 4;
    private static final int LATE_CHUNKS = 10;
    /** How old the newest chunk is when the views are asked: past the link window (30 s) and the rollup delay. */
    private static final Duration AGE_AT_ASK = Duration.ofSeconds(90);
    private static final String RELEASE_A = "fleet@A";
    private static final String RELEASE_B = "fleet@B";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * One first ask: what it was, its wall time and the relay's CPU, the samples it answered and how they compare
     * with the samples sent ({@code exact}, or the difference).
     */
    record Ask(String name, double wallMillis, double relayCpuMillis, int edgeChunks, long samples, boolean exact,
               String check) {
        static Ask of(String name, double wallMillis, double relayCpuMillis, int edgeChunks, long samples,
                      long expected) {
            return new Ask(name, wallMillis, relayCpuMillis, edgeChunks, samples, samples == expected,
                    samples == expected ? "exact" : String.format(Locale.ROOT, "OFF BY %+d of %d",
                            samples - expected, expected));
        }
    }

    record Result(int chunkSamples, int chunks, double sendSeconds, double waitedSeconds, double lateWaitSeconds,
                  Map<Character, Long> rollupsAtAsk, List<Ask> asks) {
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final FleetChunk fleet = new FleetChunk();
    private final SdkRequest recorded = Fixtures.sdkRequest("java-8.43.0/001");
    private final List<String> profilers = new ArrayList<>();
    /** Every chunk sent: its shift of the template's times. */
    private final List<Long> shifts = new ArrayList<>();
    private RelayProcess relay;

    private FleetRelayViews() {
        for (int p = 0; p < PROFILERS + LATE_CHUNKS; p++) {
            profilers.add(hex());
        }
    }

    static Result run(Path jar, Path work) throws Exception {
        return new FleetRelayViews().measure(jar, work);
    }

    private Result measure(Path jar, Path work) throws Exception {
        checkTemplateCount();
        // the fleet's first chunk starts 33 minutes before now, each profiler a little after the one before
        long now = nanos(Instant.now());
        long start = now - CHUNKS_PER_PROFILER * CADENCE_NANOS;
        List<long[]> chunks = new ArrayList<>();
        for (int i = 0; i < CHUNKS_PER_PROFILER; i++) {
            for (int p = 0; p < PROFILERS; p++) {
                chunks.add(new long[] {p, start + i * CADENCE_NANOS + p * (CADENCE_NANOS / PROFILERS)
                        - fleet.firstSampleNanos()});
            }
        }
        long from = Math.floorDiv(start, 1_000_000_000L);
        long to = Math.floorDiv(chunks.get(chunks.size() - 1)[1] + fleet.lastSampleNanos(), 1_000_000_000L) + 2;
        try (RelayProcess started = RelayProcess.startAsShipped(jar, HEAP, work)) {
            relay = started;
            long sendStart = System.nanoTime();
            send(chunks);
            long sent = System.nanoTime();
            long askAt = sent + AGE_AT_ASK.toNanos();
            while (System.nanoTime() < askAt) {
                Thread.sleep(200);
            }
            if (relay.derivedChunks() < relay.archivedChunks()) {
                progress("not every chunk derived " + AGE_AT_ASK.toSeconds() + " s after the last: "
                        + relay.derivedChunks() + " of " + relay.archivedChunks());
            }
            Map<Character, Long> rollups = relay.rollupObjects();
            long asked = System.nanoTime();
            List<Ask> asks = new ArrayList<>();
            String whole = "from=" + from + "&to=" + to;
            long all = expected(from, to);
            int wholeEdges = edgeChunks(from, to);
            asks.add(pprof("profile, whole range (pprof)", whole, wholeEdges, all));
            asks.add(timeline(whole, wholeEdges, all));
            asks.add(diff(whole, wholeEdges));
            long midFrom = from + (to - from) / 2;
            long midTo = midFrom + (to - from) / 30;
            asks.add(pprof("profile, a thirtieth (pprof)", "from=" + midFrom + "&to=" + midTo,
                    edgeChunks(midFrom, midTo), expected(midFrom, midTo)));
            long lateStart = System.nanoTime();
            List<String> late = sendLate(start);
            for (String chunkId : late) {
                if (!relay.awaitArchived(chunkId, Duration.ofSeconds(180))) {
                    throw new IllegalStateException("late chunk " + chunkId + " not derived within 180 s");
                }
            }
            double lateWait = (System.nanoTime() - lateStart) / 1e9;
            asks.add(pprof("profile, whole range, 10 late chunks", whole, edgeChunks(from, to) + LATE_CHUNKS,
                    expected(from, to)));
            // the default range is the hour before the relay's now: all the fleet while the fleet is younger
            long hourAgo = Math.floorDiv(nanos(Instant.now()), 1_000_000_000L) - 3_600;
            if (hourAgo + 5 > from) {
                throw new IllegalStateException("the fleet is older than the default range by now");
            }
            asks.add(pprof("profile, default range (no from/to)", "", -1, expected(from, to)));
            return new Result(fleet.samples(), chunks.size(), (sent - sendStart) / 1e9,
                    (asked - sent) / 1e9, lateWait, rollups, asks);
        }
    }

    /** The relay's OTLP form of one chunk must hold every sample the normalised chunk does, or no count is exact. */
    private void checkTemplateCount() {
        ProfileMerger merger = new ProfileMerger(ViewFilter.all());
        merger.add(new ChunkTranslator("chunk-relay", "bench").translate(BenchChunks.item(BenchChunks.JAVA)
                .normalise(), TranslationContext.forProject(1)));
        long otlp = merger.result().sampleCount();
        if (otlp != fleet.samples()) {
            throw new IllegalStateException("one chunk's OTLP form holds " + otlp + " samples, its JSON "
                    + fleet.samples());
        }
    }

    /** Posts every chunk from {@link #CLIENTS} threads, in time order; every one must answer 200. */
    private void send(List<long[]> chunks) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<Map<String, Integer>>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                done.add(clients.submit(() -> {
                    Map<String, Integer> failures = new TreeMap<>();
                    for (int n = next.getAndIncrement(); n < chunks.size(); n = next.getAndIncrement()) {
                        int profiler = (int) chunks.get(n)[0];
                        String failure = post(profiler, profiler < PROFILERS / 2 ? RELEASE_A : RELEASE_B,
                                chunks.get(n)[1], hex());
                        if (failure != null) {
                            failures.merge(failure, 1, Integer::sum);
                        }
                    }
                    return failures;
                }));
            }
            Map<String, Integer> failures = new TreeMap<>();
            for (Future<Map<String, Integer>> future : done) {
                future.get().forEach((k, v) -> failures.merge(k, v, Integer::sum));
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("chunks not answered 200: " + failures + "; relay log: "
                        + relay.tail());
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /** Ten chunks of ten more profilers into the range's first minutes, settled long ago: late ones. */
    private List<String> sendLate(long start) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int k = 0; k < LATE_CHUNKS; k++) {
            String chunkId = hex();
            long shift = start + 30_000_000_000L + k * 7_000_000_000L - fleet.firstSampleNanos();
            String failure = post(PROFILERS + k, RELEASE_A, shift, chunkId);
            if (failure != null) {
                throw new IllegalStateException("late chunk answered " + failure);
            }
            ids.add(chunkId);
        }
        return ids;
    }

    /** Sends one chunk; null when it answered 200, else what it answered. */
    private String post(int profiler, String release, long shift, String chunkId) {
        byte[] envelope = FleetChunk.envelope(hex(), fleet.rewrite(profilers.get(profiler), chunkId, release, shift));
        try {
            int status = client.send(FleetChunk.post(relay.base(), recorded, envelope),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status == 200) {
                synchronized (shifts) {
                    shifts.add(shift);
                }
                return null;
            }
            return "HTTP " + status;
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    /** Samples of every chunk sent so far in {@code [from, to)} (Unix seconds). */
    private long expected(long fromSeconds, long toSeconds) {
        long count = 0;
        synchronized (shifts) {
            for (long shift : shifts) {
                count += fleet.samplesIn(shift, fromSeconds * 1_000_000_000L, toSeconds * 1_000_000_000L);
            }
        }
        return count;
    }

    /**
     * Chunks with samples in the range's ragged minutes at either end: what it reads whole when every whole minute
     * between has its rollup (the relay does not say what it read).
     */
    private int edgeChunks(long fromSeconds, long toSeconds) {
        long from = fromSeconds * 1_000_000_000L;
        long to = toSeconds * 1_000_000_000L;
        long firstWhole = TimeBuckets.firstBucketFrom(RollupTier.MINUTE, from);
        long lastWhole = TimeBuckets.minuteOf(to);
        int chunks = 0;
        synchronized (shifts) {
            for (long shift : shifts) {
                if (fleet.samplesIn(shift, from, firstWhole) + fleet.samplesIn(shift, lastWhole, to) > 0) {
                    chunks++;
                }
            }
        }
        return chunks;
    }

    private Ask pprof(String name, String range, int edgeChunks, long expected) throws Exception {
        long cpu = relay.cpuNanos();
        long started = System.nanoTime();
        byte[] body = get("/profile?format=pprof" + (range.isEmpty() ? "" : "&" + range));
        double wall = (System.nanoTime() - started) / 1e6;
        return Ask.of(name, wall, (relay.cpuNanos() - cpu) / 1e6, edgeChunks, PprofSampleCount.of(body), expected);
    }

    private Ask timeline(String range, int edgeChunks, long expected) throws Exception {
        long cpu = relay.cpuNanos();
        long started = System.nanoTime();
        JsonNode answer = MAPPER.readTree(get("/timeline?" + range));
        double wall = (System.nanoTime() - started) / 1e6;
        long samples = 0;
        for (JsonNode series : answer.get("series")) {
            samples += series.get("samples").asLong();
        }
        return Ask.of("timeline, whole range (" + answer.get("steps").asInt() + " steps)", wall,
                (relay.cpuNanos() - cpu) / 1e6, edgeChunks, samples, expected);
    }

    /** Release A against release B over the whole range: each side holds half the fleet's chunks. */
    private Ask diff(String range, int edgeChunks) throws Exception {
        long cpu = relay.cpuNanos();
        long started = System.nanoTime();
        JsonNode answer = MAPPER.readTree(get("/diff?" + range + "&baseline=" + encode("release:" + RELEASE_A)
                + "&comparison=" + encode("release:" + RELEASE_B)));
        double wall = (System.nanoTime() - started) / 1e6;
        long half = (long) CHUNKS_PER_PROFILER * (PROFILERS / 2) * fleet.samples();
        long baseline = answer.get("baseline").get("samples").asLong();
        long comparison = answer.get("comparison").get("samples").asLong();
        boolean exact = baseline == half && comparison == half;
        return new Ask("diff, release A / release B", wall, (relay.cpuNanos() - cpu) / 1e6, edgeChunks,
                baseline + comparison, exact, exact ? "exact, each side" : String.format(Locale.ROOT, "OFF BY %+d (A) and %+d (B) of %d",
                baseline - half, comparison - half, half));
    }

    private byte[] get(String pathAndQuery) throws Exception {
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
                        URI.create(relay.base() + "/api/v1/projects/1" + pathAndQuery))
                .timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(pathAndQuery + " answered " + response.statusCode() + ": "
                    + new String(response.body(), StandardCharsets.UTF_8));
        }
        return response.body();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String hex() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    private static void progress(String line) {
        System.err.println("[bench fleet-views] " + line);
    }

    /** The lines the report prints: the fleet, then one row per ask. */
    static List<String> lines(Result r) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "sent %d chunks (%d samples each) in %.1f s from %d clients, all 200;"
                        + " asked %.0f s after the last; rollup objects then: %s", r.chunks(), r.chunkSamples(),
                r.sendSeconds(), CLIENTS, r.waitedSeconds(), r.rollupsAtAsk()));
        lines.add(String.format(Locale.ROOT, "%-40s %10s %13s %12s %12s  %s", "first ask", "wall ms",
                "relay CPU ms", "edge chunks", "samples", "count"));
        for (Ask ask : r.asks()) {
            lines.add(String.format(Locale.ROOT, "%-40s %10.0f %13.0f %12s %12d  %s", ask.name(), ask.wallMillis(),
                    ask.relayCpuMillis(), ask.edgeChunks() < 0 ? "-" : Integer.toString(ask.edgeChunks()),
                    ask.samples(), ask.check()));
        }
        lines.add("edge chunks: chunks with samples in the range's ragged first and last minute, which the relay"
                + " reads whole (plus late ones) when the minutes between are rolled up");
        lines.add(String.format(Locale.ROOT, "late chunks: the 10 sent after the asks were derived %.0f s later"
                + " (link window); the next whole-range answer was asked then", r.lateWaitSeconds()));
        return lines;
    }
}
