package chunkrelay.storage;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which processes that share a bucket are alive, so that a costly search of the archive for work a process left
 * behind runs only when one of them died, not every interval: a search lists every chunk of the recent days, a cost
 * that grows with the day's traffic, while a beat is one small write, and a look for stale ones one listing of one
 * folder and one small read per other process.
 *
 * <p>Each process keeps an object {@code {folder}{id}} fresh (rewritten every interval) and removes it when it stops
 * with nothing left behind. One older than {@code staleAfter} (the time written in it, by this process's clock)
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

    /**
     * The heartbeats of other processes that stopped beating without stopping cleanly: each is dated by the clock of
     * the process that wrote it (read back, one small read per other process), so staleness never compares one
     * clock with another's beyond what the leases already need.
     */
    public List<String> stale() {
        Instant limit = clock.instant().minus(staleAfter);
        List<String> stale = new ArrayList<>();
        for (String key : store.listObjects(folder)) {
            if (!key.contains(CLAIM) && !key.equals(folder + id)
                    && store.readObject(key).map(ArchiveHeartbeats::beatTime).filter(at -> at.isBefore(limit))
                    .isPresent()) {
                stale.add(key);
            }
        }
        return stale;
    }

    /** When a beat was written; one that does not read as a time counts as long ago. */
    private static Instant beatTime(byte[] body) {
        try {
            return Instant.parse(new String(body, StandardCharsets.UTF_8));
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
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
