package chunkrelay.envelope.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A closed-loop load client: a fixed number of workers, each posting the recorded SDK requests (their headers and
 * wire bodies, compressed as recorded) in turn, back to back, for a fixed time. The same requests go either to the
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

    private record Prepared(HttpRequest envelope, HttpRequest discard, long decodedBytes) {
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Prepared> requests = new ArrayList<>();

    LoadRun(URI base, List<String> requestNames) {
        for (String name : requestNames) {
            SdkRequest recorded = Fixtures.sdkRequest(name);
            requests.add(new Prepared(request(base.resolve(recorded.pathAndQuery()), recorded),
                    request(base.resolve(DISCARD_PATH), recorded), recorded.envelope().length));
        }
    }

    private static HttpRequest request(URI uri, SdkRequest recorded) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofByteArray(recorded.body()));
        for (SdkRequest.Header header : recorded.headers()) {
            if (!RESTRICTED.contains(header.name().toLowerCase())) {
                builder.header(header.name(), header.value());
            }
        }
        return builder.build();
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
                    HttpResponse<byte[]> response = client.send(discard ? prepared.discard() : prepared.envelope(),
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
