package chunkrelay.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when a test moves it, for timing tests that spend no time; as a {@link Sleeper} it moves by
 * what is slept. Thread-safe.
 */
public final class TestClock extends Clock implements Sleeper {
    private volatile Instant now;

    public TestClock(Instant start) {
        this.now = start;
    }

    /** At an arbitrary fixed instant, so that nothing depends on when the test runs. */
    public TestClock() {
        this(Instant.parse("2026-11-25T12:00:00Z"));
    }

    public synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public void sleep(Duration duration) {
        advance(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a test clock is in UTC");
    }
}
