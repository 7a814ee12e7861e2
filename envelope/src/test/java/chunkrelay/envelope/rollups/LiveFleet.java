package chunkrelay.envelope.rollups;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RunningRelay;

import java.time.Duration;
import java.time.Instant;
import java.util.Deque;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A live fleet driven on a relay whose clock the test moves: its chunks sent, and derived as their window ends. */
final class LiveFleet {
    private static final long SECOND = 1_000_000_000L;
    /** The link window the live tests run with, the shipped one. */
    private static final long WINDOW_NANOS = 30 * SECOND;

    private LiveFleet() {
    }

    /** Sends one chunk of a fleet's profiler, which the relay must answer 200. */
    static void send(RunningRelay relay, FleetChunks chunks, int fleet, int profiler, long startNanos, int steps) {
        byte[] chunk = chunks.chunk(profiler, FleetChunks.release(profiler, fleet), startNanos, steps);
        assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                FleetChunks.envelope(chunk)).status());
    }

    /**
     * Derives what the relay's clock brought to the end of its window, and waits until that is done; {@code sentAt}
     * holds when each chunk still in its window was sent, and loses those whose window ended.
     */
    static void deriveWindowsEnded(RunningRelay relay, Deque<Long> sentAt) throws InterruptedException {
        Instant instant = relay.clock().instant();
        long now = instant.getEpochSecond() * SECOND + instant.getNano();
        while (!sentAt.isEmpty() && sentAt.peek() + WINDOW_NANOS <= now) {
            sentAt.poll();
        }
        ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
        relay.bean(DerivationSchedule.class).runDue();
        Await.until(() -> "chunks past their window derived: " + derivations.pendingCount() + " pending, "
                + sentAt.size() + " in their window", Duration.ofSeconds(30),
                () -> derivations.pendingCount() == sentAt.size());
    }
}
