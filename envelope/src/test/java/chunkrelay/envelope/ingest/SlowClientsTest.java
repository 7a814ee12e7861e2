package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.CountingChunkPipeline;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slow clients hold a connection and a few buffered bytes each, not a thread: bodies are read by the event loop and
 * only complete ones reach the worker pool. The relay runs in this JVM, so the thread count and RSS measured here
 * are the relay's plus this test's.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class SlowClientsTest {
    private static final int SLOW_CLIENTS = 2000;

    @Inject
    EmbeddedServer server;

    @Inject
    CountingChunkPipeline pipeline;

    @Test
    void twoThousandTricklingClientsHoldNoThreadsAndNormalClientsStillGetThrough() throws Exception {
        byte[] envelope = Envelopes.withChunk();
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                slow.add(openAnnouncing(server, envelope.length));
                if (i % 200 == 199) {
                    trickle(slow);
                }
            }
            RelayClient client = new RelayClient(server.getURI());
            long before = pipeline.accepted();
            long slowestMillis = 0;
            int maxThreads = 0;
            for (int round = 0; round < 10; round++) {
                trickle(slow);
                long start = System.nanoTime();
                RelayClient.Answer answer = client.post(PATH, envelope, "X-Sentry-Auth", AUTH);
                slowestMillis = Math.max(slowestMillis, (System.nanoTime() - start) / 1_000_000);
                assertEquals(200, answer.status(), answer.raw());
                maxThreads = Math.max(maxThreads, ManagementFactory.getThreadMXBean().getThreadCount());
                Thread.sleep(200);
            }
            long rss = residentBytes();
            long heap = Runtime.getRuntime().maxMemory();
            System.out.printf("%d slow clients: live threads at most %d, RSS %d MiB (max heap %d MiB), slowest "
                    + "normal request %d ms%n", slow.size(), maxThreads, rss >> 20, heap >> 20, slowestMillis);
            assertEquals(before + 10, pipeline.accepted());
            assertTrue(maxThreads < 100, "live threads " + maxThreads);
            assertTrue(rss < heap + (256L << 20), "RSS " + (rss >> 20) + " MiB");
            assertTrue(slowestMillis < 2000, "slowest normal request " + slowestMillis + " ms");
        } finally {
            for (Socket socket : slow) {
                socket.close();
            }
        }
    }

    /** A connection that has sent the request head of an envelope and none of its body. */
    static Socket openAnnouncing(EmbeddedServer server, int contentLength) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.getPort()), 10_000);
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

    private static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
