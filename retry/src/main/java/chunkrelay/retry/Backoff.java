package chunkrelay.retry;

import java.time.Duration;
import java.util.Random;
import java.util.random.RandomGenerator;

/**
 * The one backoff policy: the wait before attempt {@code n + 1} after {@code n} failed ones grows from
 * {@code initial} by {@code multiplier} each time up to {@code max}, and is then jittered to between half and all
 * of that, so that processes that failed together do not retry together and no wait exceeds {@code max}. A wait the
 * other side asks for (Retry-After) is honoured as a minimum. Thread-safe.
 */
public final class Backoff {
    private final Duration initial;
    private final Duration max;
    private final double multiplier;
    private final RandomGenerator random;

    /** With jitter from a thread-safe {@link Random}. */
    public Backoff(Duration initial, Duration max, double multiplier) {
        this(initial, max, multiplier, new Random());
    }

    /** @param random the jitter's source; tests pass a fixed one */
    public Backoff(Duration initial, Duration max, double multiplier, RandomGenerator random) {
        if (initial.isNegative() || max.isNegative() || multiplier < 1) {
            throw new IllegalArgumentException("backoff needs waits of at least 0 and a multiplier of at least 1,"
                    + " got " + initial + ", " + max + ", " + multiplier);
        }
        this.initial = initial;
        this.max = max;
        this.multiplier = multiplier;
        this.random = random;
    }

    /** The wait after {@code failures} failed attempts (1 for the first failure). */
    public Duration delay(int failures) {
        double grown = initial.toMillis() * Math.pow(multiplier, Math.max(0, failures - 1));
        double capped = Math.min(grown, max.toMillis());
        return Duration.ofMillis(Math.round(capped * (0.5 + 0.5 * random.nextDouble())));
    }

    /** As {@link #delay(int)}, but at least {@code atLeast} (what a Retry-After asked for). */
    public Duration delay(int failures, Duration atLeast) {
        Duration delay = delay(failures);
        return atLeast.compareTo(delay) > 0 ? atLeast : delay;
    }

    /** Waits {@link #delay(int)} on {@code sleeper}, and returns the wait. */
    public Duration sleep(int failures, Sleeper sleeper) throws InterruptedException {
        Duration delay = delay(failures);
        sleeper.sleep(delay);
        return delay;
    }
}
