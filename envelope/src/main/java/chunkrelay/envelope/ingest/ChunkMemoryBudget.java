package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RetryLater;

import jakarta.inject.Singleton;

import java.util.concurrent.Semaphore;

/**
 * Bounds the memory held by requests together ({@code relay.limits.max-buffered-chunk-bytes}): request bodies while
 * they are buffered, and each profile chunk by its working set (payload times
 * {@code relay.limits.chunk-working-set-factor}: parsing, translating and compressing need several times the
 * payload). When it is spent the relay answers 503, as Relay does when its memory is exhausted, and the SDK retries.
 */
@Singleton
public class ChunkMemoryBudget {
    private static final int UNIT = 1024;
    /** Share of the heap the budget takes by default; the rest is the relay itself and garbage not yet collected. */
    private static final double DEFAULT_HEAP_SHARE = 0.7;

    private final Semaphore units;
    private final double chunkWorkingSetFactor;
    private final RetryLater retryLater;

    public ChunkMemoryBudget(RelayLimits limits, RetryLater retryLater) {
        this.units = new Semaphore((int) Math.min(Integer.MAX_VALUE, budgetBytes(limits) / UNIT));
        this.chunkWorkingSetFactor = Math.max(1.0, limits.chunkWorkingSetFactor());
        this.retryLater = retryLater;
    }

    static long budgetBytes(RelayLimits limits) {
        return limits.maxBufferedChunkBytes() > 0
                ? limits.maxBufferedChunkBytes()
                : (long) (Runtime.getRuntime().maxMemory() * DEFAULT_HEAP_SHARE);
    }

    /** A claim for the profile chunks of one envelope, each reserved by its working set; closing gives it back. */
    public Reservation open() {
        return new Reservation(chunkWorkingSetFactor);
    }

    /** A claim for the bytes of one request body as they are buffered, given back as they are consumed. */
    public Reservation openForBody() {
        return new Reservation(1.0);
    }

    public final class Reservation implements EnvelopeReader.PayloadBudget, AutoCloseable {
        private final double weight;
        private long heldUnits;

        private Reservation(double weight) {
            this.weight = weight;
        }

        @Override
        public synchronized void reserve(long bytes) {
            int wanted = (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil(bytes * weight / UNIT));
            if (wanted > 0 && !units.tryAcquire(wanted)) {
                throw retryLater.cannotQueue("the relay holds too many profile chunks in memory; retry later");
            }
            heldUnits += wanted;
        }

        /** Gives back what {@code bytes} reserved, once they are no longer held. */
        public synchronized void release(long bytes) {
            int units = (int) Math.min(heldUnits, (long) Math.floor(bytes * weight / UNIT));
            ChunkMemoryBudget.this.units.release(units);
            heldUnits -= units;
        }

        @Override
        public synchronized void close() {
            units.release((int) heldUnits);
            heldUnits = 0;
        }
    }
}
