package chunkrelay.envelope.testing;

import chunkrelay.envelope.ClockFactory;
import chunkrelay.retry.TestClock;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * With {@code test.clock: manual}, the relay reads a {@link TestClock} that the test moves. It starts at the real
 * time, so that the bucket's own dates (when an object was written) stay comparable with it, or {@code
 * test.clock-ahead} later (for a forked command line, which no test can move).
 */
@Factory
@Requires(property = "test.clock", value = "manual")
public class TestClockFactory {

    @Singleton
    @Replaces(value = Clock.class, factory = ClockFactory.class)
    Clock testClock(@Value("${test.clock-ahead:0s}") Duration ahead) {
        return new TestClock(Instant.now().plus(ahead));
    }
}
