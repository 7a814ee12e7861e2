package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RepeatingInputStream;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.util.Arrays;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A body refused after it started arriving is read to its end before the answer goes out, so a client still
 * sending reads the 4xx instead of a connection reset.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "relay.limits.max-envelope-bytes", value = "67108864")
class RefusedBodiesTest {
    private static final int MIB = 1024 * 1024;

    @Inject
    EmbeddedServer server;

    @Test
    @Tag("slow")
    void aLargeBodyThatFailsToDecodeIsAnswered400InEveryOneOfAHundredAttempts() {
        RelayClient client = new RelayClient(server.getURI());
        byte[] notGzip = new byte[40 * MIB];
        Arrays.fill(notGzip, (byte) 'x');
        int answered = 0;
        for (int attempt = 0; attempt < 100; attempt++) {
            RelayClient.Answer answer = client.post(PATH, notGzip, "X-Sentry-Auth", AUTH,
                    "Content-Encoding", "gzip");
            assertEquals(400, answer.status(), "attempt " + attempt + ": " + answer.raw());
            assertEquals("invalid request body", answer.detail());
            answered++;
        }
        assertEquals(100, answered);
    }

    @Test
    void anOverLimitBodySentSlowlyIsAnswered413OnceItHasBeenSent() {
        RelayClient client = new RelayClient(server.getURI());
        RelayClient.Answer answer = client.postStream(PATH, () -> slowly(65 * MIB, MIB, 10), "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status(), answer.raw());
        assertEquals("failed to read request body", answer.detail());
    }

    @Test
    void aBodyAnnouncedOverTheLimitIsReadAndAnswered413() {
        RelayClient client = new RelayClient(server.getURI());
        // a Content-Length of 65 MiB, the body generated while it is sent
        HttpRequest.BodyPublisher announced = HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> new RepeatingInputStream((byte) ' ', 65L * MIB)),
                65L * MIB);
        RelayClient.Answer answer = client.send(PATH, announced, "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status(), answer.raw());
        assertEquals("failed to read request body", answer.detail());
    }

    /** {@code size} bytes of spaces in pieces of {@code piece} bytes with a pause of {@code pauseMillis} each. */
    private static InputStream slowly(long size, int piece, long pauseMillis) {
        return new InputStream() {
            private long left = size;
            /** Bytes left in the current piece; the pause comes before a piece, whatever size the reader asks for. */
            private long pieceLeft;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0];
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                if (left == 0) {
                    return -1;
                }
                if (pieceLeft == 0) {
                    try {
                        Thread.sleep(pauseMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return -1;
                    }
                    pieceLeft = piece;
                }
                int n = (int) Math.min(Math.min(length, pieceLeft), left);
                Arrays.fill(buffer, offset, offset + n, (byte) ' ');
                left -= n;
                pieceLeft -= n;
                return n;
            }
        };
    }
}
