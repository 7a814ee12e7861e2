package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A store call's deadline on the store's clock, moved by a test clock that also takes the waits between attempts. */
class StoreDeadlineTest {
    private final TestClock clock = new TestClock();

    @Test
    void aDeadlineRunsOutOnTheClock() {
        Deadline deadline = new Deadline(Duration.ofSeconds(10), clock);

        clock.advance(Duration.ofSeconds(4));
        assertEquals(Duration.ofSeconds(6), deadline.remaining());
        clock.advance(Duration.ofSeconds(7));
        assertEquals(Duration.ZERO, deadline.remaining());
    }

    @Test
    void aStoreThatCannotReachItsServerRetriesUntilTheNextWaitWouldPassTheDeadline() {
        Duration budget = Duration.ofSeconds(10);
        ArchiveSettings settings;
        try (EmbeddedS3Server stopped = EmbeddedS3Server.inMemory()) {
            settings = ArchiveFixtures.settings(stopped).withDeadline(budget).withRetry(1_000, Duration.ofMillis(100));
        }
        Instant start = clock.instant();
        long realStart = System.nanoTime();
        try (ObjectStore store = ObjectStore.overHttp(settings, clock)) {
            ArchiveUnavailableException e = assertThrows(ArchiveUnavailableException.class,
                    () -> store.storeObject("chunk", new byte[] {1}));

            assertTrue(e.getMessage().contains("no time left for another attempt within 10000 ms"), e.getMessage());
        }
        Duration waited = Duration.between(start, clock.instant());
        // waits of 50-100 % of 100, 200, 400, 800, 1600 ms, then 2 s each, as long as the next fits
        assertTrue(waited.compareTo(Duration.ofSeconds(3)) > 0 && waited.compareTo(budget) < 0, "waited " + waited);
        Duration took = Duration.ofNanos(System.nanoTime() - realStart);
        assertTrue(took.compareTo(budget) < 0, "the waits were on the test clock, yet the call took " + took);
    }
}
