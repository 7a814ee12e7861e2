package chunkrelay.envelope.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;

/**
 * A pass-through request's body as the upstream HTTP client takes it: read from the SDK's stream on the request's own
 * thread ({@link #send}) and handed to the client as it asks for more, at most {@value #BUFFERS} buffers ahead. The
 * client's few threads, which every exchange with the upstream shares (the senders' too), never wait for an SDK that
 * sends slowly, as they would reading the stream themselves ({@code BodyPublishers.ofInputStream}). One exchange.
 */
final class PassThroughBody implements Flow.Publisher<ByteBuffer> {
    private static final int BUFFER_BYTES = 16 * 1024;
    private static final int BUFFERS = 4;
    /** How often a body not yet asked for looks whether its exchange ended without it (no connection). */
    private static final long SUBSCRIBE_POLL_MILLIS = 100;

    /** Hands each buffer over on the thread that submits it or asks for it, both of which only queue it. */
    private final SubmissionPublisher<ByteBuffer> buffers = new SubmissionPublisher<>(Runnable::run, BUFFERS);
    private final CountDownLatch subscribed = new CountDownLatch(1);

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        buffers.subscribe(subscriber);
        subscribed.countDown();
    }

    /**
     * Reads {@code body} to its end and hands it over, waiting while the client holds as many buffers as it may;
     * stops early when the exchange ends without the rest (the upstream answered or failed). A body that cannot be
     * read fails the exchange with the error.
     */
    void send(InputStream body, Future<?> exchange) throws InterruptedException {
        // the client asks for the body once it has a connection and wrote the headers: a buffer offered before is lost
        while (!subscribed.await(SUBSCRIBE_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            if (exchange.isDone()) {
                buffers.close();
                return;
            }
        }
        byte[] buffer = new byte[BUFFER_BYTES];
        try {
            for (int read = body.read(buffer); read >= 0 && buffers.hasSubscribers(); read = body.read(buffer)) {
                if (read > 0) {
                    buffers.submit(ByteBuffer.wrap(Arrays.copyOf(buffer, read)));
                }
            }
        } catch (IOException e) {
            buffers.closeExceptionally(e);
            return;
        }
        buffers.close();
    }
}
