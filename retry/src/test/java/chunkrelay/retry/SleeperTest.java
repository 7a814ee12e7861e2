package chunkrelay.retry;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Waits pass on the clock their deadlines are on. */
class SleeperTest {

    @Test
    void onAManualClockAWaitMovesTheClockInsteadOfSpendingRealTime() throws InterruptedException {
        TestClock clock = new TestClock();
        Instant start = clock.instant();

        Sleeper.on(clock).sleep(Duration.ofDays(1));

        assertEquals(start.plus(Duration.ofDays(1)), clock.instant());
    }

    @Test
    void onTheSystemClockAWaitIsSleptInRealTime() {
        assertSame(Sleeper.THREAD_SLEEP, Sleeper.on(Clock.systemUTC()));
    }
}
