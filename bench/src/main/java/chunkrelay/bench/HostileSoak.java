package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * The relay at saturation under a hostile mix, for minutes: 32 clients back to back, each request drawn from the
 * recorded SDK envelopes (fresh chunk ids), bad inputs (a body that is not the gzip it says, a broken envelope, an
 * unknown key) and slow clients (an envelope trickled over a few seconds). It counts answers by status, any 5xx
 * other than 503, any error answer not in Relay's shape, prints the relay's RSS each minute, and checks at the end
 * that every chunk answered 200 is in the archive.
 */
final class HostileSoak {
    private static final int CLIENTS = 32;
    private static final String BAD_AUTH = "Sentry sentry_version=7,sentry_key=ffffffffffffffffffffffffffffffff";

    private final RelayProcess relay;
    private final List<LoadRun.Prepared> recorded;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, LongAdder> answers = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> acknowledgedChunks = new ConcurrentLinkedQueue<>();
    private final LongAdder unexpected5xx = new LongAdder();
    private final LongAdder notRelayShape = new LongAdder();

    private HostileSoak(RelayProcess relay) {
        this.relay = relay;
        List<String> names = Fixtures.sdkRequests().stream().map(SdkRequest::name)
                .filter(n -> n.startsWith("java-8.43.0/") || n.startsWith("node-11.1.0-long/")).toList();
        this.recorded = new LoadRun(relay.base(), names).prepared().stream().filter(LoadRun.Prepared::refreshed)
                .toList();
    }

    /** Runs the soak against a relay of this jar and heap and writes its report; true when every check held. */
    static boolean run(Path jar, String heap, Duration duration, PrintWriter out) throws Exception {
        Path work = Files.createTempDirectory("chunk-relay-soak-");
        try (RelayProcess relay = RelayProcess.start(jar, heap, work.resolve("soak"))) {
            return new HostileSoak(relay).drive(duration, out);
        } finally {
            BenchmarkSuite.deleteTree(work);
        }
    }

    private boolean drive(Duration duration, PrintWriter out) throws Exception {
        out.printf("%nHostile soak (relay -Xmx of the load run, %d clients back to back for %d s: recorded envelopes, "
                + "bad inputs, slow clients)%n", CLIENTS, duration.toSeconds());
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        long start = System.nanoTime();
        long deadline = start + duration.toNanos();
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            long seed = c;
            running.add(clients.submit(() -> client(new Random(seed), deadline)));
        }
        List<Long> rssPerMinute = new ArrayList<>();
        long nextMinute = start + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            Thread.sleep(1000);
            if (System.nanoTime() >= nextMinute) {
                long rss = rssKib(relay.pid());
                rssPerMinute.add(rss);
                out.printf("  minute %d: RSS %d MiB, answers so far %s%n", rssPerMinute.size(), rss / 1024, counts());
                out.flush();
                nextMinute += Duration.ofMinutes(1).toNanos();
            }
        }
        for (Future<?> client : running) {
            client.get();
        }
        clients.shutdownNow();
        Set<String> archived = relay.archivedChunkIds();
        List<String> missing = acknowledgedChunks.stream().filter(id -> !archived.contains(id)).toList();
        relay.awaitDerived(RelayProcess.LINK_WINDOW.plusSeconds(60));
        long derived = relay.derivedChunks();
        out.printf("  chunks archived: %d, derived (OTLP form written) after the link window: %d%n",
                relay.archivedChunks(), derived);
        out.printf("  answers %s; 5xx other than 503: %d; error answers not in Relay's shape: %d%n", counts(),
                unexpected5xx.sum(), notRelayShape.sum());
        out.printf("  chunks answered 200: %d, of them not in the archive: %d; relay alive: %s%n",
                acknowledgedChunks.size(), missing.size(), relay.alive());
        boolean flat = rssPerMinute.size() < 3
                || rssPerMinute.get(rssPerMinute.size() - 1) < rssPerMinute.get(1) * 1.25;
        out.printf("  RSS per minute (MiB): %s, flat after the first minute: %s%n",
                rssPerMinute.stream().map(kib -> kib / 1024).toList(), flat);
        return unexpected5xx.sum() == 0 && notRelayShape.sum() == 0 && missing.isEmpty() && relay.alive() && flat
                && derived == relay.archivedChunks();
    }

    private Void client(Random random, long deadline) {
        while (System.nanoTime() < deadline) {
            int kind = random.nextInt(100);
            try {
                if (kind < 70) {
                    recordedEnvelope(random);
                } else if (kind < 85) {
                    badInput(random);
                } else {
                    slowClient(random);
                }
            } catch (IOException e) {
                count("no answer: " + e.getClass().getSimpleName());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    private void recordedEnvelope(Random random) throws IOException, InterruptedException {
        String chunkId = UUID.randomUUID().toString().replace("-", "");
        LoadRun.Prepared prepared = recorded.get(random.nextInt(recorded.size()));
        HttpResponse<String> response = http.send(prepared.request(false, chunkId),
                HttpResponse.BodyHandlers.ofString());
        judge(response.statusCode(), response.body());
        if (response.statusCode() == 200) {
            acknowledgedChunks.add(chunkId);
        }
    }

    private void badInput(Random random) throws IOException, InterruptedException {
        URI envelope = relay.base().resolve("/api/1/envelope/");
        HttpRequest.Builder request = HttpRequest.newBuilder(envelope).timeout(Duration.ofSeconds(60));
        switch (random.nextInt(3)) {
            case 0 -> request.header("X-Sentry-Auth", MemoryProbe.AUTH).header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[1 << 20]));
            case 1 -> request.header("X-Sentry-Auth", MemoryProbe.AUTH)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"event_id\":\"nope\"\n{\"type\":\"profile_chunk\""));
            default -> request.header("X-Sentry-Auth", BAD_AUTH)
                    .POST(HttpRequest.BodyPublishers.ofString("{}\n{\"type\":\"event\"}\n{}\n"));
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        judge(response.statusCode(), response.body());
    }

    /** A small valid envelope written a few bytes at a time over a few seconds, on a plain socket. */
    private void slowClient(Random random) throws IOException, InterruptedException {
        byte[] body = ("{\"event_id\":\"9ec79c33ec9942ab8353589fcb2e04dc\"}\n{\"type\":\"session\",\"length\":2}\n{}\n")
                .getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket(relay.base().getHost(), relay.base().getPort())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/1/envelope/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Sentry-Auth: "
                    + MemoryProbe.AUTH + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            for (int at = 0; at < body.length; at += 8) {
                out.write(body, at, Math.min(8, body.length - at));
                out.flush();
                Thread.sleep(100 + random.nextInt(200));
            }
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = answer.startsWith("HTTP/1.1 ") ? Integer.parseInt(answer.substring(9, 12)) : -1;
            int bodyStart = answer.indexOf("\r\n\r\n");
            judge(status, bodyStart < 0 ? "" : answer.substring(bodyStart + 4));
        }
    }

    private void judge(int status, String body) {
        count(Integer.toString(status));
        if (status >= 500 && status != 503) {
            unexpected5xx.increment();
        }
        if (status >= 400 && !body.contains("\"detail\":")) {
            notRelayShape.increment();
        }
    }

    private void count(String answer) {
        answers.computeIfAbsent(answer, a -> new LongAdder()).increment();
    }

    private String counts() {
        StringBuilder text = new StringBuilder("{");
        answers.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
                text.append(text.length() > 1 ? ", " : "").append(e.getKey()).append('=').append(e.getValue().sum()));
        return text.append('}').toString();
    }

    private static long rssKib(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
