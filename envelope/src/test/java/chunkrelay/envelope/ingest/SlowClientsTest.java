package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.ForkedRelay;
import chunkrelay.envelope.testing.RelayClient;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slow clients hold a connection and a few buffered bytes each, not a thread: bodies are read by the event loop and
 * only complete ones reach the worker pool. The relay runs in a JVM of its own (-Xmx384m), so its threads and RSS
 * are read from /proc for that process alone.
 */
@Tag("external")
class SlowClientsTest {
    private static final int SLOW_CLIENTS = 2000;
    private static final long HEAP = 384L << 20;

    @Test
    void twoThousandTricklingClientsHoldNoThreadsAndNormalClientsStillGetThrough(@TempDir Path work)
            throws Exception {
        List<Socket> slow = new ArrayList<>();
        try (ForkedRelay relay = ForkedRelay.start((int) (HEAP >> 20), work)) {
            try {
                byte[] envelope = Envelopes.withChunk();
                RelayClient client = new RelayClient(relay.base());
                for (int warmUp = 0; warmUp < 5; warmUp++) {
                    // the first chunks create the bucket and warm the JIT; measured is the slow clients' effect
                    assertEquals(200, client.post(PATH, envelope, "X-Sentry-Auth", AUTH).status());
                }
                for (int i = 0; i < SLOW_CLIENTS; i++) {
                    slow.add(openAnnouncing(relay.port(), envelope.length));
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
                    maxThreads = Math.max(maxThreads, relay.status("Threads:"));
                    maxRss = Math.max(maxRss, relay.status("VmRSS:") * 1024);
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
            }
        }
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
