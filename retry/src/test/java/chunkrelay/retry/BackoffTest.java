package chunkrelay.retry;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackoffTest {
    /** Jitter at its top: nextDouble() just under 1. */
    private static final RandomGenerator HIGHEST = () -> -1L;
    /** Jitter at its bottom: nextDouble() 0. */
    private static final RandomGenerator LOWEST = () -> 0L;

    @Test
    void waitGrowsByTheMultiplierUpToTheMax() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2, HIGHEST);

        assertEquals(List.of(100L, 200L, 400L, 800L, 1000L, 1000L), millis(backoff, 6));
    }

    @Test
    void aMultiplierOfOneAndAHalfGrowsTheWaitByHalf() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60), 1.5, HIGHEST);

        assertEquals(List.of(1000L, 1500L, 2250L, 3375L), millis(backoff, 4));
    }

    @Test
    void jitterTakesTheWaitDownToHalfAndNeverAboveIt() {
        assertEquals(List.of(50L, 100L, 200L, 400L, 500L),
                millis(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2, LOWEST), 5));
        Backoff seeded = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2, new Random(29));
        for (int failures = 1; failures <= 200; failures++) {
            long full = Math.min(100L << Math.min(failures - 1, 20), 1000);
            long wait = seeded.delay(failures).toMillis();
            assertTrue(wait >= full / 2 && wait <= full, failures + " failures: " + wait + " ms");
        }
    }

    @Test
    void jitterSpreadsTheWaitsOfProcessesThatFailedTogether() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, new Random(7));
        long distinct = IntStream.range(0, 50).mapToObj(i -> backoff.delay(1)).distinct().count();

        assertTrue(distinct > 25, distinct + " distinct waits of 50");
    }

    @Test
    void manyFailuresStayAtTheMax() {
        Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofSeconds(30), 2, HIGHEST);

        assertEquals(Duration.ofSeconds(30), backoff.delay(100_000));
    }

    @Test
    void aLongerWaitTheOtherSideAsksForIsHonoured() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2, HIGHEST);

        assertEquals(Duration.ofSeconds(5), backoff.delay(1, Duration.ofSeconds(5)));
        assertEquals(Duration.ofMillis(200), backoff.delay(2, Duration.ofMillis(10)));
    }

    @Test
    void sleepsTheWaitOnTheSleeper() throws InterruptedException {
        TestClock clock = new TestClock();
        Instant start = clock.instant();
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2, HIGHEST);

        Duration first = backoff.sleep(1, clock);
        Duration second = backoff.sleep(2, clock);

        assertEquals(List.of(Duration.ofMillis(100), Duration.ofMillis(200)), List.of(first, second));
        assertEquals(start.plusMillis(300), clock.instant());
    }

    @Test
    void aMaxBelowTheInitialWaitCapsEveryWait() {
        Backoff backoff = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1), 2, HIGHEST);

        assertEquals(List.of(1000L, 1000L), millis(backoff, 2));
    }

    @Test
    void refusesANegativeWaitOrAShrinkingMultiplier() {
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(-1), Duration.ofSeconds(1), 2));
        assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(2), 0.5));
    }

    private static List<Long> millis(Backoff backoff, int failures) {
        List<Long> waits = new ArrayList<>();
        for (int i = 1; i <= failures; i++) {
            waits.add(backoff.delay(i).toMillis());
        }
        return waits;
    }
}
