package chunkrelay.envelope.ingest;

import chunkrelay.envelope.Application;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slow clients hold a connection and a few buffered bytes each, not a thread: bodies are read by the event loop and
 * only complete ones reach the worker pool. The relay runs in a JVM of its own (the application on the test class
 * path, -Xmx384m), so its threads and RSS are read from /proc for that process alone.
 */
class SlowClientsTest {
    private static final int SLOW_CLIENTS = 2000;
    private static final long HEAP = 384L << 20;

    @Test
    void twoThousandTricklingClientsHoldNoThreadsAndNormalClientsStillGetThrough(@TempDir Path work)
            throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process relay = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + (HEAP >> 20) + "m", "-Dmicronaut.server.port=" + port,
                "-Drelay.storage.embedded.directory=" + work.resolve("archive"),
                "-cp", System.getProperty("java.class.path"), Application.class.getName()))
                .redirectErrorStream(true).redirectOutput(work.resolve("relay.log").toFile()).start();
        List<Socket> slow = new ArrayList<>();
        try {
            URI base = URI.create("http://127.0.0.1:" + port);
            awaitListening(port, relay, work);
            byte[] envelope = Envelopes.withChunk();
            RelayClient client = new RelayClient(base);
            for (int warmUp = 0; warmUp < 5; warmUp++) {
                // the first chunks create the bucket and warm the JIT; what is measured is the slow clients' effect
                assertEquals(200, client.post(PATH, envelope, "X-Sentry-Auth", AUTH).status());
            }
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                slow.add(openAnnouncing(port, envelope.length));
                if (i % 200 == 199) {
                    trickle(slow);
                }
            }
            long slowestMillis = 0;
            long maxThreads = 0;
            long maxRss = 0;
            for (int round = 0; round < 10; round++) {
                trickle(slow);
                long start = System.nanoTime();
                RelayClient.Answer answer = client.post(PATH, envelope, "X-Sentry-Auth", AUTH);
                slowestMillis = Math.max(slowestMillis, (System.nanoTime() - start) / 1_000_000);
                assertEquals(200, answer.status(), answer.raw());
                maxThreads = Math.max(maxThreads, status(relay, "Threads:"));
                maxRss = Math.max(maxRss, status(relay, "VmRSS:") * 1024);
                Thread.sleep(200);
            }
            System.out.printf("%d slow clients: relay threads at most %d, RSS at most %d MiB (max heap %d MiB), "
                    + "slowest normal request %d ms%n", slow.size(), maxThreads, maxRss >> 20, HEAP >> 20,
                    slowestMillis);
            assertTrue(maxThreads < 100, "relay threads " + maxThreads);
            assertTrue(maxRss < HEAP + (256L << 20), "relay RSS " + (maxRss >> 20) + " MiB");
            assertTrue(slowestMillis < 2000, "slowest normal request " + slowestMillis + " ms");
        } finally {
            for (Socket socket : slow) {
                socket.close();
            }
            relay.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitListening(int port, Process relay, Path work) throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < giveUp) {
            if (!relay.isAlive()) {
                throw new IllegalStateException("relay exited: " + Files.readString(work.resolve("relay.log")));
            }
            try (Socket probe = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("relay did not listen within 90 s: " + Files.readString(work.resolve("relay.log")));
    }

    /** A number field of the relay's /proc status, e.g. {@code Threads:} or {@code VmRSS:} (KiB). */
    private static long status(Process relay, String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(relay.pid()), "status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no " + field + " in /proc status");
    }

    /** A connection that has sent the request head of an envelope and none of its body. */
    static Socket openAnnouncing(int port, int contentLength) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        String head = "POST " + PATH + " HTTP/1.1\r\nHost: localhost\r\nX-Sentry-Auth: " + AUTH
                + "\r\nContent-Type: application/x-sentry-envelope\r\nContent-Length: " + contentLength + "\r\n\r\n";
        OutputStream out = socket.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** One more byte of a body that is never finished, from every slow client. */
    private static void trickle(List<Socket> sockets) throws IOException {
        for (Socket socket : sockets) {
            socket.getOutputStream().write(' ');
        }
    }
}
