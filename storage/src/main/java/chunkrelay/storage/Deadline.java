package chunkrelay.storage;

import java.time.Duration;

/** A point in time by which a store call, with all its attempts, must be done. */
final class Deadline {
    private final long endNanos;

    Deadline(Duration budget) {
        this.endNanos = System.nanoTime() + budget.toNanos();
    }

    Duration remaining() {
        return Duration.ofNanos(Math.max(0, endNanos - System.nanoTime()));
    }
}
