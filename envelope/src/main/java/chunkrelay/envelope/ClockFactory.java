package chunkrelay.envelope;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.time.Clock;

/**
 * The one clock everything that waits, dates or times out reads, so that tests can move time instead of spending
 * it.
 */
@Factory
public class ClockFactory {

    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
