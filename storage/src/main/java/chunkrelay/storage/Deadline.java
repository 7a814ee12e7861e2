package chunkrelay.storage;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** A point in time by which a store call, with all its attempts, must be done. */
final class Deadline {
    private final Clock clock;
    private final Instant end;

    Deadline(Duration budget, Clock clock) {
        this.clock = clock;
        this.end = clock.instant().plus(budget);
    }

    Duration remaining() {
        Duration left = Duration.between(clock.instant(), end);
        return left.isNegative() ? Duration.ZERO : left;
    }
}
