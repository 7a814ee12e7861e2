package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lease on a real S3 server's conditional writes (S3Proxy in memory), with time moved by a test clock. */
@ExtendWith(InMemoryS3.class)
class ObjectLeaseTest {
    private static final Duration TERM = Duration.ofSeconds(60);
    private static final String NAME = "claims/chunk.lease-";

    private final TestClock clock = new TestClock();
    private ObjectStore store;

    @BeforeEach
    void openStore(ObjectStore store) {
        this.store = store;
        // the bucket exists, as it does once anything was archived
        store.storeObject("chunk", new byte[] {1});
        // at the start of a period, so that advancing less than a term stays in it
        clock.advance(Duration.ofMillis(TERM.toMillis() - clock.millis() % TERM.toMillis()));
    }

    private ObjectLease lease(String holder) {
        return new ObjectLease(store, NAME, TERM, clock, holder);
    }

    private long period() {
        return clock.millis() / TERM.toMillis();
    }

    @Test
    void aFreeNameIsAcquiredByOneHolderAndRefusedToTheOthers() {
        ObjectLease a = lease("a");
        ObjectLease b = lease("b");

        assertTrue(a.acquire());
        assertFalse(b.acquire());
        assertEquals(List.of(NAME + period()), store.listObjects(NAME));
        assertEquals("a", new String(store.readObject(NAME + period()).orElseThrow(), StandardCharsets.UTF_8));
    }

    @Test
    void ofHoldersRacingForAFreeNameExactlyOneAcquiresIt() throws Exception {
        int holders = 8;
        CyclicBarrier start = new CyclicBarrier(holders);
        ExecutorService threads = Executors.newFixedThreadPool(holders);
        try {
            List<Future<Boolean>> acquired = new ArrayList<>();
            for (int i = 0; i < holders; i++) {
                ObjectLease lease = lease("holder-" + i);
                acquired.add(threads.submit(() -> {
                    start.await();
                    return lease.acquire();
                }));
            }
            int winners = 0;
            for (Future<Boolean> result : acquired) {
                winners += result.get() ? 1 : 0;
            }
            assertEquals(1, winners);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theHolderKeepsItWithinAPeriodAndRenewsItIntoTheNext() {
        ObjectLease a = lease("a");
        ObjectLease b = lease("b");
        assertTrue(a.acquire());

        clock.advance(TERM.minusSeconds(1));
        assertTrue(a.acquire());
        clock.advance(Duration.ofSeconds(1));
        assertTrue(a.acquire(), "renewed in the next period");
        assertFalse(b.acquire());
        clock.advance(TERM);
        assertTrue(a.acquire(), "renewed again");
        assertFalse(b.acquire());
    }

    @Test
    void aHoldThatIsNotRenewedLapsesAfterOneWholeTerm() {
        ObjectLease a = lease("a");
        ObjectLease b = lease("b");
        clock.advance(TERM.minusSeconds(1));
        assertTrue(a.acquire(), "acquired at the end of its period");

        clock.advance(Duration.ofSeconds(1));
        assertFalse(b.acquire(), "still held in the next period: a hold lasts at least a term");
        clock.advance(TERM.minusSeconds(1));
        assertFalse(b.acquire());
        clock.advance(Duration.ofSeconds(1));
        assertTrue(b.acquire(), "lapsed two periods on");
        assertFalse(a.acquire(), "a holder that stopped renewing has lost it");
    }

    @Test
    void releaseRemovesEveryObjectOfTheHoldAndFreesTheName() {
        ObjectLease a = lease("a");
        ObjectLease b = lease("b");
        assertTrue(a.acquire());
        clock.advance(TERM);
        assertTrue(a.acquire());
        clock.advance(TERM);
        assertTrue(a.acquire());
        assertEquals(2, store.listObjects(NAME).size());

        a.release();

        assertEquals(List.of(), store.listObjects(NAME));
        assertTrue(b.acquire());
    }

    @Test
    void aHoldRenewedForManyTermsKeepsOnlyItsLastTwoObjects() {
        ObjectLease a = lease("a");
        ObjectLease b = lease("b");
        for (int term = 0; term < 5; term++) {
            assertTrue(a.acquire());
            clock.advance(TERM);
        }
        assertTrue(a.acquire());

        assertEquals(List.of(NAME + (period() - 1), NAME + period()), store.listObjects(NAME));
        assertFalse(b.acquire(), "still held");
    }

    @Test
    void releaseLeavesAnotherHoldersLeaseAlone() {
        ObjectLease a = lease("a");
        ObjectLease b = lease("b");
        assertTrue(a.acquire());
        assertFalse(b.acquire());

        b.release();

        assertEquals(List.of(NAME + period()), store.listObjects(NAME));
    }

    @Test
    void refusesATermShorterThanAMillisecond() {
        assertThrows(IllegalArgumentException.class,
                () -> new ObjectLease(store, NAME, Duration.ZERO, clock, "a"));
    }
}
