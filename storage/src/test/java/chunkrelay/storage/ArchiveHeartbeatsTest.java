package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Heartbeats of processes sharing a real S3 server's bucket (S3Proxy in memory), with time moved by a test clock. */
@ExtendWith(InMemoryS3.class)
class ArchiveHeartbeatsTest {
    private static final String FOLDER = "derivers/";
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration STALE_AFTER = Duration.ofSeconds(30);

    private final TestClock clock = new TestClock();
    private ObjectStore store;

    @BeforeEach
    void openStore(ObjectStore store) {
        this.store = store;
    }

    private ArchiveHeartbeats process() {
        return new ArchiveHeartbeats(store, FOLDER, INTERVAL, STALE_AFTER, clock);
    }

    /** Every process beats, then time moves one interval. */
    private void interval(ArchiveHeartbeats... beating) {
        for (ArchiveHeartbeats process : beating) {
            process.beat();
        }
        clock.advance(INTERVAL);
    }

    @Test
    void aProcessThatKeepsBeatingIsNeverStale() {
        ArchiveHeartbeats alive = process();
        ArchiveHeartbeats peer = process();
        for (int i = 0; i < 10; i++) {
            interval(alive, peer);
            assertEquals(List.of(), peer.stale());
            assertEquals(List.of(), peer.claimStale());
        }
    }

    @Test
    void aProcessThatStopsBeatingIsStaleOnceItsLastBeatIsOlderThanStaleAfter() {
        ArchiveHeartbeats dead = process();
        ArchiveHeartbeats peer = process();
        dead.beat();
        List<String> deadBeat = store.listObjects(FOLDER);

        interval(peer);
        interval(peer);
        interval(peer);
        assertEquals(List.of(), peer.stale(), "beaten 30 s ago, stale only after that");
        clock.advance(Duration.ofSeconds(1));

        assertEquals(deadBeat, peer.stale());
    }

    @Test
    void ofPeersFindingADeadProcessOneClaimsItUntilItsClaimLapses() {
        ArchiveHeartbeats dead = process();
        ArchiveHeartbeats first = process();
        ArchiveHeartbeats second = process();
        dead.beat();
        clock.advance(STALE_AFTER.plusSeconds(1));
        first.beat();
        second.beat();

        List<String> claimed = first.claimStale();
        assertEquals(1, claimed.size());
        assertEquals(List.of(), second.claimStale());
        assertEquals(claimed, first.claimStale(), "the claimant keeps its claim while its search has not finished");

        // the claimant dies too: its claim (five intervals) lapses within two terms, and it is stale itself
        clock.advance(INTERVAL.multipliedBy(10));
        second.beat();
        List<String> claimedLater = second.claimStale();
        assertTrue(claimedLater.containsAll(claimed), claimedLater.toString());
        assertEquals(2, claimedLater.size(), claimedLater.toString());
    }

    @Test
    void recoveredRemovesTheDeadProcessesHeartbeatAndItsClaims() {
        ArchiveHeartbeats dead = process();
        ArchiveHeartbeats peer = process();
        dead.beat();
        clock.advance(STALE_AFTER.plusSeconds(1));
        peer.beat();
        List<String> claimed = peer.claimStale();

        peer.recovered(claimed.get(0));

        assertEquals(List.of(), peer.stale());
        assertEquals(1, store.listObjects(FOLDER).size(), "only the peer's own heartbeat is left");
    }

    @Test
    void aProcessThatStopsCleanlyLeavesNoHeartbeat() {
        ArchiveHeartbeats stopping = process();
        ArchiveHeartbeats never = process();
        stopping.beatOnce();
        stopping.beatOnce();
        assertEquals(1, store.listObjects(FOLDER).size());

        stopping.stopped();
        never.stopped();

        assertEquals(List.of(), store.listObjects(FOLDER));
    }
}
