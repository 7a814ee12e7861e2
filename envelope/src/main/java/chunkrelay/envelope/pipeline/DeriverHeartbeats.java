package chunkrelay.envelope.pipeline;

import chunkrelay.storage.ChunkArchive;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which relays may hold chunks waiting for their link window, so that the archive is searched for underived chunks
 * only when one of them died with chunks waiting, not every interval: a search lists every chunk of the recent days,
 * a cost that grows with the day's traffic, while a beat is one small write and one listing of this folder.
 *
 * <p>Each relay that derives keeps an object {@code derivers/{id}} fresh (rewritten every recovery interval) and
 * removes it when it stops with nothing left waiting. One older than three intervals (and than an interval, the
 * window and the grace period together, so that all its chunks are due) belongs to a relay that died;
 * the first peer to claim it ({@code derivers/{id}.recovery.{period}}, a conditional write, so one claimant; a claim
 * lapses after ten intervals, in case its claimant dies too) searches the archive, then removes it.
 */
final class DeriverHeartbeats {
    static final String PREFIX = "derivers/";
    private static final String CLAIM = ".recovery.";
    private static final int STALE_INTERVALS = 3;
    private static final int CLAIM_INTERVALS = 10;

    private final ChunkArchive archive;
    private final Duration interval;
    private final Duration staleAfter;
    private final String id = UUID.randomUUID().toString().substring(0, 8);
    private volatile boolean beating;
    private volatile boolean startMissed;

    /**
     * @param interval how often a relay beats
     * @param dueAfter how old a Sentry form must be before a search derives it (the window and a grace period)
     */
    DeriverHeartbeats(ChunkArchive archive, Duration interval, Duration dueAfter) {
        this.archive = archive;
        this.interval = interval;
        // a dead relay wrote its last chunk before the beat it missed: by the time its heartbeat is this old, every
        // chunk it left is due, and one search finds them all
        Duration allDue = interval.plus(dueAfter);
        Duration missedBeats = interval.multipliedBy(STALE_INTERVALS);
        this.staleAfter = allDue.compareTo(missedBeats) > 0 ? allDue : missedBeats;
    }

    /**
     * Says this relay is alive and may hold chunks waiting.
     *
     * @throws chunkrelay.storage.ArchiveUnavailableException when the bucket cannot be written
     */
    void beat() {
        archive.storeObject(PREFIX + id, Instant.now().toString().getBytes(StandardCharsets.UTF_8));
        beating = true;
    }

    /**
     * Beats now unless this relay has beaten already: before its first chunk waits, so that a relay that dies with
     * chunks waiting always leaves a heartbeat behind.
     *
     * @throws chunkrelay.storage.ArchiveUnavailableException when the bucket cannot be written
     */
    void beatOnce() {
        if (!beating) {
            beat();
        }
    }

    /** The heartbeats of other relays that stopped beating without stopping cleanly. */
    List<String> stale() {
        Instant limit = Instant.now().minus(staleAfter);
        return archive.listObjectsWrittenAt(PREFIX).entrySet().stream()
                .filter(e -> !e.getKey().contains(CLAIM) && !e.getKey().equals(PREFIX + id))
                .filter(e -> e.getValue().isBefore(limit))
                .map(Map.Entry::getKey).toList();
    }

    /** Whether this relay is the one to recover the chunks of the dead relay whose heartbeat is {@code key}. */
    boolean claim(String key) {
        long period = System.currentTimeMillis() / interval.multipliedBy(CLAIM_INTERVALS).toMillis();
        return archive.storeObjectIfAbsent(key + CLAIM + period, id.getBytes(StandardCharsets.UTF_8));
    }

    /** Removes a dead relay's heartbeat, and the claims on it, once the archive has been searched. */
    void recovered(String key) {
        archive.deleteObject(key);
        archive.listObjects(key + CLAIM).forEach(archive::deleteObject);
    }

    /** The search at start failed (the archive was down): the next beat runs it again. */
    void missedStart() {
        startMissed = true;
    }

    /** Whether the search at start is still owed; true once (the caller runs it now). */
    boolean startMissed() {
        boolean missed = startMissed;
        startMissed = false;
        return missed;
    }

    /** Removes this relay's heartbeat: it stopped with nothing waiting. */
    void stopped() {
        if (beating) {
            archive.deleteObject(PREFIX + id);
        }
    }
}
