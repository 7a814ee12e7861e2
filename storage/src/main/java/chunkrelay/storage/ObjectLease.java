package chunkrelay.storage;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;

/**
 * One holder's hold on a name in a bucket shared by several processes, for a term: the hold is an object
 * {@code {name}{n}} created with {@code If-None-Match: *}, where {@code n} numbers the term-long periods of the clock,
 * so that of all processes trying in one period exactly one creates it. It is refused while another holder's object
 * of the period before exists, so a hold lasts at least one whole term and at most two; a holder that dies loses it
 * by then without anyone removing anything. The holder renews it by acquiring again in the next period (dropping its
 * objects of periods before the previous one, which nobody reads), and removes its objects when done. Processes' clocks need only agree to within a term. Thread-safe.
 */
public final class ObjectLease {
    private static final long NONE = Long.MIN_VALUE;

    private final ObjectStore store;
    private final String name;
    private final Duration term;
    private final Clock clock;
    private final byte[] holder;
    /** The periods this holder's objects cover, from {@code since} to {@code held}; {@link #NONE} when none. */
    private long since = NONE;
    private long held = NONE;

    /**
     * @param name   the key prefix of the lease's objects, to which the period's number is appended
     * @param holder who holds it, written into its objects for whoever reads the bucket
     */
    public ObjectLease(ObjectStore store, String name, Duration term, Clock clock, String holder) {
        if (term.toMillis() <= 0) {
            throw new IllegalArgumentException("a lease's term must be at least 1 ms, got " + term);
        }
        this.store = store;
        this.name = name;
        this.term = term;
        this.clock = clock;
        this.holder = holder.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Whether this holder holds the lease now: it held it in this period already, or renews its hold of the period
     * before, or nobody held it then and this call is the one that creates this period's object.
     *
     * @throws ArchiveUnavailableException when the bucket cannot be read or written
     */
    public synchronized boolean acquire() {
        long period = clock.millis() / term.toMillis();
        if (held == period) {
            return true;
        }
        boolean renewing = held == period - 1;
        if (!renewing && store.readObject(key(period - 1)).isPresent()) {
            return false;
        }
        if (!store.storeObjectIfAbsent(key(period), holder)) {
            since = NONE;
            held = NONE;
            return false;
        }
        if (renewing) {
            // only the period before is ever read by others: a hold renewed for weeks keeps two objects, not one a term
            for (long old = since; old < period - 1; old++) {
                store.deleteQuietly(key(old));
            }
            since = period - 1;
        } else {
            since = period;
        }
        held = period;
        return true;
    }

    /**
     * Removes this holder's objects: the name is free for anyone from now on.
     *
     * @throws ArchiveUnavailableException when the bucket cannot be written
     */
    public synchronized void release() {
        if (held == NONE) {
            return;
        }
        for (long period = since; period <= held; period++) {
            store.deleteObject(key(period));
        }
        since = NONE;
        held = NONE;
    }

    private String key(long period) {
        return name + period;
    }
}
