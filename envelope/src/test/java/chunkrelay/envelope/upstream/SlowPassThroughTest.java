package chunkrelay.envelope.upstream;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SDKs that post to the pass-through endpoints a byte at a time, to an upstream that answers them slowly, hold at
 * most {@code relay.upstream.pass-through-requests} threads of the relay (the others are refused with 503 and
 * {@code Retry-After}), none of the server's, and never the upstream HTTP client's: while they are still sending, a
 * chunk is archived and answered, and an envelope's event reaches the upstream through the client they share.
 */
@Tag("slow")
class SlowPassThroughTest {
    private static final int SLOW_CLIENTS = 40;
    private static final int PASS_THROUGH_THREADS = 8;
    private static final Duration UPSTREAM_DELAY = Duration.ofSeconds(3);
    /** Between the bytes of a slow body: 26 bytes take 13 s. */
    private static final Duration TRICKLE = Duration.ofMillis(500);
    private static final byte[] EVENT = "{\"message\":\"sent slowly\"}".getBytes(StandardCharsets.UTF_8);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String REFUSED = "503 retry after 5";

    @Test
    void slowPassThroughClientsHoldTheirThreadsOnlyAndLeaveChunksAndTheSendersToTheUpstreamAnswering()
            throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             TestUpstream upstream = new TestUpstream(SLOW_CLIENTS + 4)) {
            upstream.answer(request -> {
                if (request.path().endsWith("/store/")) {
                    sleep(UPSTREAM_DELAY);
                }
                return TestUpstream.Answer.ok();
            });
            try (RunningRelay relay = RunningRelay.start(s3, Map.of("relay.upstream.url", upstream.uri().toString(),
                    "relay.upstream.pass-through-requests", PASS_THROUGH_THREADS, "relay.limits.workers", "2"))) {
                Set<Thread> before = Thread.getAllStackTraces().keySet();
                Map<String, Integer> most = new ConcurrentHashMap<>();
                Thread sampler = new Thread(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        threadsSince(before).forEach((name, count) -> most.merge(name, count, Math::max));
                        sleep(Duration.ofMillis(20));
                    }
                });
                sampler.start();
                ExecutorService clients = Executors.newFixedThreadPool(SLOW_CLIENTS);
                CountDownLatch sending = new CountDownLatch(SLOW_CLIENTS);
                AtomicLong firstBodySent = new AtomicLong(Long.MAX_VALUE);
                List<Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < SLOW_CLIENTS; i++) {
                    answers.add(clients.submit(() -> slowStore(relay.uri(), sending, firstBodySent)));
                }
                assertTrue(sending.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the slow clients connected");

                RelayClient.Answer chunk = relay.client().post(Envelopes.PATH, Envelopes.withChunk(),
                        "X-Sentry-Auth", AUTH);
                assertEquals(200, chunk.status(), chunk.raw());
                RelayClient.Answer event = relay.client().post(Envelopes.PATH, Envelopes.withItem(Envelopes.header(),
                        "{\"type\":\"event\",\"length\":" + EVENT.length + "}", EVENT), "X-Sentry-Auth", AUTH);
                assertEquals(200, event.status(), event.raw());
                Await.until("the envelope's event at the upstream", WAIT, () -> upstream.received().stream()
                        .anyMatch(received -> received.path().equals("/api/1/envelope/")));
                assertTrue(firstBodySent.get() == Long.MAX_VALUE, "a slow client sent its whole body before the chunk "
                        + "was answered and the event reached the upstream");

                Map<String, Integer> statuses = new TreeMap<>();
                for (Future<String> answer : answers) {
                    statuses.merge(answer.get(WAIT.toSeconds(), TimeUnit.SECONDS), 1, Integer::sum);
                }
                clients.shutdownNow();
                sampler.interrupt();
                sampler.join();
                assertEquals(Map.of("200", PASS_THROUGH_THREADS, REFUSED, SLOW_CLIENTS - PASS_THROUGH_THREADS),
                        statuses, "the pass-through's answers");
                assertEquals(PASS_THROUGH_THREADS, upstream.received().stream()
                        .filter(received -> received.path().equals("/api/1/store/")
                                && received.header().path("message").asText().equals("sent slowly"))
                        .count(), "the events passed on whole");
                assertEquals(SLOW_CLIENTS - PASS_THROUGH_THREADS, PrometheusScrape.of(relay.uri())
                        .value("relay_upstream_pass_through_refused_total"), "refusals counted");
                assertEquals(PASS_THROUGH_THREADS, most.get("upstream-pass-through-N"), "pass-through threads");
                assertTrue(most.get("upstream-http-N") <= 2, "upstream HTTP client threads: " + most);
                assertEquals(null, most.get("io-executor-thread-N"), "the server's blocking threads: " + most);
            }
        }
    }

    /**
     * Posts an event to the store endpoint a byte at a time; returns the answer's status, with its
     * {@code Retry-After}. A body sent to its end sets {@code firstBodySent} when it is the first.
     */
    private static String slowStore(URI relay, CountDownLatch sending, AtomicLong firstBodySent)
            throws IOException, InterruptedException {
        try (Socket socket = new Socket(relay.getHost(), relay.getPort())) {
            socket.setSoTimeout((int) WAIT.toMillis());
            OutputStream out = socket.getOutputStream();
            try {
                out.write(("POST /api/1/store/ HTTP/1.1\r\nHost: " + relay.getHost() + "\r\nContent-Type: "
                        + "application/json\r\nX-Sentry-Auth: " + AUTH + "\r\nContent-Length: " + EVENT.length
                        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                sending.countDown();
                for (byte b : EVENT) {
                    Thread.sleep(TRICKLE.toMillis());
                    out.write(b);
                    out.flush();
                }
                firstBodySent.accumulateAndGet(System.nanoTime(), Math::min);
            } catch (IOException e) {
                // refused before the body was sent, and the connection closed: the answer is read below
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            String status = in.readLine().split(" ")[1];
            String retryAfter = null;
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                if (line.toLowerCase(Locale.ROOT).startsWith("retry-after:")) {
                    retryAfter = line.substring("retry-after:".length()).trim();
                }
            }
            return retryAfter == null ? status : status + " retry after " + retryAfter;
        }
    }

    /** The threads started since {@code before}, by name with numbers as N. */
    private static Map<String, Integer> threadsSince(Set<Thread> before) {
        Map<String, Integer> names = new TreeMap<>();
        Thread.getAllStackTraces().keySet().stream().filter(thread -> !before.contains(thread) && thread.isAlive())
                .forEach(thread -> names.merge(thread.getName().replaceAll("\\d+", "N"), 1, Integer::sum));
        return names;
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
