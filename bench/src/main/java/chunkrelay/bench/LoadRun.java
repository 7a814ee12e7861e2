package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A closed-loop load client: a fixed number of workers, each posting the recorded SDK requests (their headers, their
 * envelopes gzipped as recorded, each with a fresh chunk id) in turn, back to back, for a fixed time. The same requests go either to the
 * envelope endpoint or to the discard endpoint, which only reads and decodes the body.
 */
final class LoadRun {
    /** Headers the JDK client sets itself and refuses to take from the caller. */
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade");
    static final String DISCARD_PATH = "/benchmark/discard";

    /** What one phase measured. */
    record Result(String target, int concurrency, double seconds, long ok, long errors, Map<String, Long> failures,
                  long decodedBytes, long[] latencyNanos) {
        double requestsPerSecond() {
            return ok / seconds;
        }

        double decodedMegabytesPerSecond() {
            return decodedBytes / 1e6 / seconds;
        }

        double percentileMillis(double p) {
            if (latencyNanos.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p / 100 * latencyNanos.length) - 1;
            return latencyNanos[Math.max(0, rank)] / 1e6;
        }
    }

    /**
     * One recorded request, ready to be sent with a fresh chunk id each time (the relay suppresses chunks it archived
     * moments ago, so a repeated id would skip translation and archiving). A gzip body is sent as three gzip members,
     * which decode to one stream: the recorded envelope up to the chunk id and after it, each compressed once, and
     * the new id between them; so each request costs the client no recompression. Dated now, its chunk's samples are
     * moved to end at the moment it is made ready, again every {@link #REDATE} (so a chunk is at most that old when
     * sent, as a live SDK's is when it arrives): the client then spends a parse and a compression of the envelope
     * that often.
     */
    static final class Prepared {
        /** How often a request dated now is dated again. */
        static final Duration REDATE = Duration.ofSeconds(5);

        private final URI envelopeUri;
        private final URI discardUri;
        private final List<SdkRequest.Header> headers;
        private final SdkRequest recorded;
        private final boolean gzip;
        private final boolean datedNow;
        private volatile Body body;

        /** The request's bytes around the chunk id (after null: sent as recorded, no id to refresh). */
        private record Body(byte[] before, byte[] after, long decodedBytes, long datedAtNanos) {
        }

        Prepared(URI base, SdkRequest recorded, boolean datedNow) {
            envelopeUri = base.resolve(recorded.pathAndQuery());
            discardUri = base.resolve(DISCARD_PATH);
            headers = recorded.headers().stream()
                    .filter(h -> !RESTRICTED.contains(h.name().toLowerCase(Locale.ROOT))).toList();
            this.recorded = recorded;
            String encoding = recorded.headers().stream().filter(h -> h.name().equalsIgnoreCase("Content-Encoding"))
                    .map(SdkRequest.Header::value).findFirst().orElse("").trim().toLowerCase(Locale.ROOT);
            gzip = encoding.equals("gzip");
            boolean refreshable = chunkIdOffset(recorded.envelope()) >= 0 && (encoding.isEmpty() || gzip);
            this.datedNow = datedNow && refreshable;
            body = refreshable ? body(recorded.envelope()) : new Body(recorded.body(), null,
                    recorded.envelope().length, System.nanoTime());
        }

        private Body body(byte[] envelope) {
            long now = System.nanoTime();
            if (datedNow) {
                envelope = DatedEnvelope.endingAt(envelope, Instant.now());
            }
            int id = chunkIdOffset(envelope);
            byte[] head = Arrays.copyOfRange(envelope, 0, id);
            byte[] tail = Arrays.copyOfRange(envelope, id + 32, envelope.length);
            return new Body(gzip ? Gzip.of(head) : head, gzip ? Gzip.of(tail) : tail, envelope.length, now);
        }

        HttpRequest request(boolean discard) {
            return request(discard, UUID.randomUUID().toString().replace("-", ""));
        }

        /** Whether each request carries a fresh chunk id (the one given); else the recorded bytes go as they are. */
        boolean refreshed() {
            return body.after() != null;
        }

        HttpRequest request(boolean discard, String chunkId) {
            Body current = current();
            byte[] sent = current.before();
            if (current.after() != null) {
                byte[] id = chunkId.getBytes(StandardCharsets.US_ASCII);
                byte[] middle = gzip ? Gzip.of(id) : id;
                byte[] before = current.before();
                byte[] after = current.after();
                sent = new byte[before.length + middle.length + after.length];
                System.arraycopy(before, 0, sent, 0, before.length);
                System.arraycopy(middle, 0, sent, before.length, middle.length);
                System.arraycopy(after, 0, sent, before.length + middle.length, after.length);
            }
            HttpRequest.Builder builder = HttpRequest.newBuilder(discard ? discardUri : envelopeUri)
                    .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(sent));
            headers.forEach(h -> builder.header(h.name(), h.value()));
            return builder.build();
        }

        private Body current() {
            Body current = body;
            if (datedNow && System.nanoTime() - current.datedAtNanos() > REDATE.toNanos()) {
                synchronized (this) {
                    if (body == current) {
                        body = body(recorded.envelope());
                    }
                    current = body;
                }
            }
            return current;
        }

        long decodedBytes() {
            return body.decodedBytes();
        }

        /** Where the 32 hex digits of the first {@code "chunk_id":"...} start, or -1. */
        private static int chunkIdOffset(byte[] envelope) {
            Matcher m = CHUNK_ID.matcher(new String(envelope, StandardCharsets.ISO_8859_1));
            return m.find() ? m.start(1) : -1;
        }

    }

    private static final Pattern CHUNK_ID = Pattern.compile("\"chunk_id\"\\s*:\\s*\"([0-9a-fA-F]{32})\"");

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Prepared> requests = new ArrayList<>();

    /** The prepared requests, for other drivers that mix them with their own. */
    List<Prepared> prepared() {
        return requests;
    }

    LoadRun(URI base, List<String> requestNames) {
        this(base, requestNames, false);
    }

    /** With {@code datedNow}, each chunk's samples end at most {@link Prepared#REDATE} before it is sent. */
    LoadRun(URI base, List<String> requestNames, boolean datedNow) {
        for (String name : requestNames) {
            requests.add(new Prepared(base, Fixtures.sdkRequest(name), datedNow));
        }
    }

    /** Posts to the envelope endpoint ({@code discard} false) or the discard endpoint for {@code duration}. */
    Result drive(boolean discard, int concurrency, Duration duration) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(concurrency);
        long start = System.nanoTime();
        long deadline = start + duration.toNanos();
        try {
            List<Future<Worker>> futures = new ArrayList<>();
            for (int w = 0; w < concurrency; w++) {
                int offset = w;
                futures.add(workers.submit(() -> new Worker(discard, offset).run(deadline)));
            }
            List<Worker> done = new ArrayList<>();
            for (Future<Worker> future : futures) {
                done.add(future.get());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long ok = 0;
            long errors = 0;
            long decoded = 0;
            Map<String, Long> failures = new TreeMap<>();
            int latencyCount = 0;
            for (Worker worker : done) {
                ok += worker.ok;
                errors += worker.errors;
                decoded += worker.decodedBytes;
                latencyCount += worker.count;
                worker.failures.forEach((k, v) -> failures.merge(k, v, Long::sum));
            }
            long[] latencies = new long[latencyCount];
            int at = 0;
            for (Worker worker : done) {
                System.arraycopy(worker.latencies, 0, latencies, at, worker.count);
                at += worker.count;
            }
            Arrays.sort(latencies);
            return new Result(discard ? "discard endpoint" : "envelope endpoint", concurrency, seconds, ok, errors,
                    failures, decoded, latencies);
        } finally {
            workers.shutdownNow();
        }
    }

    /**
     * Posts to the envelope endpoint at a fixed rate for {@code duration}, whatever the answers take (a fleet of SDKs
     * sends on its own schedule, not when the relay has answered): requests per second, in turn.
     */
    Result paced(double perSecond, Duration duration) throws Exception {
        long interval = (long) (1e9 / perSecond);
        long start = System.nanoTime();
        List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
        long decoded = 0;
        for (long due = start; due < start + duration.toNanos(); due += interval) {
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            Prepared prepared = requests.get(sent.size() % requests.size());
            sent.add(client.sendAsync(prepared.request(false), HttpResponse.BodyHandlers.discarding()));
            decoded += prepared.decodedBytes();
        }
        long ok = 0;
        Map<String, Long> failures = new TreeMap<>();
        for (CompletableFuture<HttpResponse<Void>> answer : sent) {
            try {
                int status = answer.get(60, TimeUnit.SECONDS).statusCode();
                if (status == 200) {
                    ok++;
                } else {
                    failures.merge("HTTP " + status, 1L, Long::sum);
                }
            } catch (ExecutionException | TimeoutException e) {
                failures.merge(e.getClass().getSimpleName(), 1L, Long::sum);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result("envelope endpoint", 0, seconds, ok, sent.size() - ok, failures, decoded, new long[0]);
    }

    private final class Worker {
        private final boolean discard;
        private int next;
        private long ok;
        private long errors;
        private long decodedBytes;
        private final Map<String, Long> failures = new TreeMap<>();
        private long[] latencies = new long[1 << 14];
        private int count;

        Worker(boolean discard, int offset) {
            this.discard = discard;
            this.next = offset;
        }

        Worker run(long deadline) {
            while (System.nanoTime() < deadline) {
                Prepared prepared = requests.get(next++ % requests.size());
                long sent = System.nanoTime();
                String failure = null;
                try {
                    HttpResponse<byte[]> response = client.send(prepared.request(discard),
                            HttpResponse.BodyHandlers.ofByteArray());
                    if (response.statusCode() != 200) {
                        failure = "HTTP " + response.statusCode();
                    }
                } catch (Exception e) {
                    failure = e.getClass().getSimpleName();
                }
                if (count == latencies.length) {
                    latencies = Arrays.copyOf(latencies, count * 2);
                }
                latencies[count++] = System.nanoTime() - sent;
                if (failure == null) {
                    ok++;
                    decodedBytes += prepared.decodedBytes();
                } else {
                    errors++;
                    failures.merge(failure, 1L, Long::sum);
                }
            }
            return this;
        }
    }
}
