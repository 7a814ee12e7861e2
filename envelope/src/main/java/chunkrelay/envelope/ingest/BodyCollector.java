package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;

import io.micronaut.http.HttpStatus;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reads a request body on the event loop into the memory budget, with no thread waiting for it. A body that is
 * refused (its request was refused before it arrived, it is over the limit, or the budget is spent) is still read
 * to its end and dropped as it comes: the answer then goes to a client that has finished sending, never as a reset
 * to one that is still writing. A client that sends nothing for the read timeout is answered 408 and cut off.
 */
final class BodyCollector implements Subscriber<byte[]> {
    private final CompletableFuture<RequestBody> result = new CompletableFuture<>();
    private final ChunkMemoryBudget.Reservation reservation;
    private final long maxBytes;
    private final long readTimeoutNanos;
    private final ScheduledExecutorService timer;
    private final Deque<byte[]> pieces = new ArrayDeque<>();
    private volatile long lastProgress = System.nanoTime();
    private volatile Subscription subscription;
    private RelayError refusal;
    private long size;

    /**
     * @param reservation where the buffered bytes are counted
     * @param maxBytes    the most a body may have; a longer one is refused with 413 and read on, up to the
     *                    server's {@code max-request-size}, so that the client still reads the answer
     * @param refusal     the answer already decided before the body arrived, or null
     * @param readTimeout how long the client may send nothing
     * @param timer       where the read timeout is checked
     */
    BodyCollector(ChunkMemoryBudget.Reservation reservation, long maxBytes, RelayError refusal,
                  Duration readTimeout, ScheduledExecutorService timer) {
        this.reservation = reservation;
        this.maxBytes = maxBytes;
        this.refusal = refusal;
        this.readTimeoutNanos = readTimeout.toNanos();
        this.timer = timer;
    }

    /** The complete body, or the refusal once the body has been read to its end. */
    CompletableFuture<RequestBody> result() {
        return result;
    }

    @Override
    public void onSubscribe(Subscription subscription) {
        this.subscription = subscription;
        scheduleTimeoutCheck(readTimeoutNanos);
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public synchronized void onNext(byte[] piece) {
        lastProgress = System.nanoTime();
        if (refusal != null || result.isDone()) {
            return;
        }
        try {
            if (size + piece.length > maxBytes) {
                throw RelayError.bodyTooLarge();
            }
            reservation.reserve(piece.length);
            pieces.addLast(piece);
            size += piece.length;
        } catch (RelayError e) {
            refusal = e;
            release();
        }
    }

    @Override
    public synchronized void onError(Throwable error) {
        release();
        result.completeExceptionally(error);
    }

    @Override
    public synchronized void onComplete() {
        if (refusal != null) {
            release();
            result.completeExceptionally(refusal);
        } else if (!result.isDone()) {
            result.complete(new RequestBody(pieces, size, reservation));
        }
    }

    private void scheduleTimeoutCheck(long delayNanos) {
        timer.schedule(this::checkTimeout, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkTimeout() {
        if (result.isDone()) {
            return;
        }
        long idle = System.nanoTime() - lastProgress;
        if (idle < readTimeoutNanos) {
            scheduleTimeoutCheck(readTimeoutNanos - idle);
            return;
        }
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            release();
            result.completeExceptionally(new RelayError(HttpStatus.REQUEST_TIMEOUT, "failed to read request body",
                    "no bytes received for " + readTimeoutNanos / 1_000_000 + " ms"));
        }
        subscription.cancel();
    }

    private void release() {
        pieces.clear();
        reservation.close();
    }
}
