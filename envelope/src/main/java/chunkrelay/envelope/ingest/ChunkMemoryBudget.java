package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.pipeline.RelayLimits;

import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;

import java.util.concurrent.Semaphore;

/**
 * Bounds the chunk payload bytes held in memory by all requests together ({@code relay.limits.max-buffered-chunk-bytes}):
 * each request is bounded by the chunk limit, this bounds their sum. When it is spent the relay answers 503, as
 * Relay does when its memory is exhausted, and the SDK retries later.
 */
@Singleton
public class ChunkMemoryBudget {
    private static final int UNIT = 1024;

    private final Semaphore units;

    public ChunkMemoryBudget(RelayLimits limits) {
        this.units = new Semaphore((int) Math.min(Integer.MAX_VALUE, budgetBytes(limits) / UNIT));
    }

    static long budgetBytes(RelayLimits limits) {
        return limits.maxBufferedChunkBytes() > 0
                ? limits.maxBufferedChunkBytes()
                : Runtime.getRuntime().maxMemory() / 3;
    }

    /** A claim on the budget by one envelope; closing it gives everything back. */
    public Reservation open() {
        return new Reservation();
    }

    public final class Reservation implements EnvelopeReader.PayloadBudget, AutoCloseable {
        private long heldUnits;

        @Override
        public void reserve(long bytes) {
            int wanted = (int) ((bytes + UNIT - 1) / UNIT);
            if (wanted > 0 && !units.tryAcquire(wanted)) {
                throw new RelayError(HttpStatus.SERVICE_UNAVAILABLE, "failed to queue envelope",
                        "the relay holds too many profile chunks in memory; retry later");
            }
            heldUnits += wanted;
        }

        @Override
        public void close() {
            units.release((int) heldUnits);
            heldUnits = 0;
        }
    }
}
