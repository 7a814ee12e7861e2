package chunkrelay.storage;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which processes that share a bucket are alive, so that a costly search of the archive for work a process left
 * behind runs only when one of them died, not every interval: a search lists every chunk of the recent days, a cost
 * that grows with the day's traffic, while a beat is one small write and one listing of one folder.
 *
 * <p>Each process keeps an object {@code {folder}{id}} fresh (rewritten every interval) and removes it when it stops
 * with nothing left behind. One older than {@code staleAfter} (by the bucket's write time and this process's clock)
 * belongs to a process that died; the first peer to claim it (an {@link ObjectLease} {@code {folder}{id}.recovery.},
 * with a term of five intervals, so one claimant, and a claim lapses in case its claimant dies too) searches, then
 * removes it. Thread-safe.
 */
public final class ArchiveHeartbeats {
    private static final String CLAIM = ".recovery.";
    private static final int CLAIM_INTERVALS = 5;

    private final ObjectStore store;
    private final String folder;
    private final Duration interval;
    private final Duration staleAfter;
    private final Clock clock;
    private final String id = UUID.randomUUID().toString().substring(0, 8);
    /** This process's claims by heartbeat, kept so that it renews a claim whose search did not finish. */
    private final Map<String, ObjectLease> claims = new ConcurrentHashMap<>();
    private volatile boolean beating;

    /**
     * @param folder     the key prefix of this kind of process, ending in {@code /}
     * @param interval   how often a process beats
     * @param staleAfter how old a heartbeat must be to belong to a dead process (several intervals, and long enough
     *                   that whatever the dead process left is due when it is found)
     * @param clock      dates beats and tells their age
     */
    public ArchiveHeartbeats(ObjectStore store, String folder, Duration interval, Duration staleAfter, Clock clock) {
        this.store = store;
        this.folder = folder;
        this.interval = interval;
        this.staleAfter = staleAfter;
        this.clock = clock;
    }

    /**
     * Says this process is alive.
     *
     * @throws ArchiveUnavailableException when the bucket cannot be written
     */
    public void beat() {
        store.storeObject(folder + id, clock.instant().toString().getBytes(StandardCharsets.UTF_8));
        beating = true;
    }

    /**
     * Beats now unless this process has beaten already: before it first holds work a search would have to find, so
     * that a process that dies with such work always leaves a heartbeat behind.
     *
     * @throws ArchiveUnavailableException when the bucket cannot be written
     */
    public void beatOnce() {
        if (!beating) {
            beat();
        }
    }

    /** The heartbeats of other processes that stopped beating without stopping cleanly. */
    public List<String> stale() {
        Instant limit = clock.instant().minus(staleAfter);
        return store.listObjectsWrittenAt(folder).entrySet().stream()
                .filter(e -> !e.getKey().contains(CLAIM) && !e.getKey().equals(folder + id))
                .filter(e -> e.getValue().isBefore(limit))
                .map(Map.Entry::getKey).toList();
    }

    /**
     * The stale heartbeats this process claimed: the dead processes whose leftovers it is the one to search for (one
     * search covers them all), then to pass to {@link #recovered}.
     */
    public List<String> claimStale() {
        List<String> stale = stale();
        claims.keySet().retainAll(stale);
        return stale.stream()
                .filter(key -> claims.computeIfAbsent(key, k -> new ObjectLease(store, k + CLAIM,
                        interval.multipliedBy(CLAIM_INTERVALS), clock, id)).acquire())
                .toList();
    }

    /** Removes a dead process's heartbeat, and the claims on it, once the search is done. */
    public void recovered(String key) {
        claims.remove(key);
        store.deleteObject(key);
        store.listObjects(key + CLAIM).forEach(store::deleteObject);
    }

    /** Removes this process's heartbeat: it stopped with nothing left behind. */
    public void stopped() {
        if (beating) {
            store.deleteObject(folder + id);
        }
    }
}
