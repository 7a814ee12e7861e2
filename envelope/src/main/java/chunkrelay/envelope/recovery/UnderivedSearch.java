package chunkrelay.envelope.recovery;

import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveHeartbeats;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.storage.UnderivedChunk;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The search of the archive for chunks left underived (the derivations' recovery): at start, then, while
 * chunks wait for their window, a heartbeat ({@code derivers/{id}}, {@link ArchiveHeartbeats}) every recovery
 * interval with a search only when another relay stopped beating. What it finds it hands to
 * {@link ChunkDerivations#deriveUnderived}. Its rounds are kept on the derivations' clock
 * ({@link DerivationSchedule}), each arming the next when it is done; they run in the server only (the {@code replay}
 * command line derives what it needs through {@link #deriveForReplay}). Without a window nothing waits, so there is
 * no heartbeat, and one search at start finds what a relay killed between a chunk's two writes left underived.
 */
@Singleton
public class UnderivedSearch {
    private static final Logger LOG = LoggerFactory.getLogger(UnderivedSearch.class);
    /** A chunk is left to its own relay for this long after its window before a search takes it. */
    public static final Duration RECOVERY_GRACE = Duration.ofSeconds(10);
    /** The newest day folders of a project a search looks at, besides today and yesterday. */
    private static final int RECENT_DAY_FOLDERS = 2;
    /** Without a window, the search at start waits at most this long on the clock (the recovery interval if less). */
    private static final Duration FIRST_SEARCH = Duration.ofSeconds(2);

    private final LinksConfig config;
    private final ChunkArchive archive;
    private final Clock clock;
    private final TimeBuckets buckets;
    private final DerivationSchedule schedule;
    private final ChunkDerivations derivations;
    private final Counter searches;
    /** {@code derivers/{id}}: relays that may hold chunks waiting for their window. */
    private final ArchiveHeartbeats heartbeats;
    /** The search at start has run; until then a round is that search. */
    private volatile boolean started;
    /** The search at start failed (the archive was down): the next round runs it again. */
    private volatile boolean startMissed;
    private volatile boolean stopping;

    public UnderivedSearch(LinksConfig config, ChunkArchive archive, MeterRegistry meters, Clock clock,
                           TimeBuckets buckets, DerivationSchedule schedule, ChunkDerivations derivations,
                           BackgroundWork work) {
        this.config = config;
        this.archive = archive;
        this.clock = clock;
        this.buckets = buckets;
        this.schedule = schedule;
        this.derivations = derivations;
        this.searches = RelayMeter.RECOVERY_SEARCHES.counter(meters);
        // a dead relay wrote its last chunk before the beat it missed: by the time its heartbeat is this old, every
        // chunk it left is due, and one search finds them all
        Duration allDue = config.recoveryInterval().plus(config.window()).plus(RECOVERY_GRACE);
        Duration missedBeats = config.recoveryInterval().multipliedBy(3);
        this.heartbeats = new ArchiveHeartbeats(archive.store(), ArchiveLayout.DERIVERS,
                config.recoveryInterval(), allDue.compareTo(missedBeats) > 0 ? allDue : missedBeats, clock);
        // registered after the derivations' own step (they are made first), so it runs after theirs
        work.atStop(BackgroundWork.Stage.DERIVATION, "the search for underived chunks", this::stop);
    }

    /**
     * A heartbeat and a search of the archive a little after start, which recovers what this relay, restarted, or
     * any relay that died left underived; then a heartbeat every recovery interval, with a search only when another
     * relay stopped beating. Without a window, one search.
     */
    @EventListener
    void onStartup(ServerStartupEvent event) {
        Duration first = config.recoveryInterval().compareTo(FIRST_SEARCH) < 0
                ? config.recoveryInterval() : FIRST_SEARCH;
        schedule.after(first, config.deferred() ? this::round : this::searchAtStart);
        schedule.start();
    }

    /** No window, so no heartbeat: one search at start finds what a relay killed between a chunk's writes left. */
    private void searchAtStart() {
        try {
            recover();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("recovery at start stopped, archive unavailable: {}", e.getMessage());
        }
    }

    /**
     * Before a chunk first waits for its window: this relay's heartbeat exists, so that if it dies with the chunk
     * waiting, a peer knows to search for it.
     *
     * @throws ArchiveUnavailableException when the heartbeat cannot be written
     */
    public void beforeWaiting() {
        if (config.deferred()) {
            heartbeats.beatOnce();
        }
    }

    private void round() {
        if (started) {
            recoverDeadPeers();
        } else {
            started = true;
            recoverAtStart();
        }
        if (!stopping) {
            schedule.after(config.recoveryInterval(), this::round);
        }
    }

    private void recoverAtStart() {
        try {
            heartbeats.beat();
            List<String> dead = heartbeats.stale();
            recover();
            if (!stopping) {
                dead.forEach(heartbeats::recovered);
            }
        } catch (ArchiveUnavailableException e) {
            LOG.warn("recovery at start stopped, archive unavailable: {}; the next pass searches again",
                    e.getMessage());
            startMissed = true;
        }
    }

    private void recoverDeadPeers() {
        try {
            heartbeats.beat();
            if (startMissed) {
                startMissed = false;
                recoverAtStart();
                return;
            }
            List<String> dead = heartbeats.claimStale();
            if (!dead.isEmpty() && !stopping) {
                LOG.info("relays {} stopped beating; searching the archive for chunks they left underived", dead);
                recover();
                dead.forEach(heartbeats::recovered);
            }
        } catch (ArchiveUnavailableException e) {
            LOG.warn("heartbeat or recovery pass failed, archive unavailable: {}", e.getMessage());
        }
    }

    /**
     * One search: derives the chunks whose Sentry form was written more than the window and a grace period ago and
     * whose OTLP form is missing, unless this relay is waiting for them itself. It looks at the days a recent chunk
     * can be filed under: today and yesterday (UTC), and each project's newest day folders (chunks are filed by their
     * first sample, which the SDK's clock dates, and a replayed recording is dated when it was recorded). Returns how
     * many it derived.
     *
     * @throws ArchiveUnavailableException when the archive cannot be listed
     */
    public int recover() {
        if (stopping) {
            return 0;
        }
        searches.increment();
        int derived = 0;
        Instant writtenBefore = writtenBefore();
        LocalDate today = buckets.today();
        for (String project : archive.listProjects()) {
            List<LocalDate> present = archive.listDays(project);
            Set<LocalDate> days = new TreeSet<>(present.subList(Math.max(0, present.size() - RECENT_DAY_FOLDERS),
                    present.size()));
            days.add(today.minusDays(1));
            days.add(today);
            for (LocalDate day : days) {
                for (UnderivedChunk underived : archive.listUnderived(project, day)) {
                    if (stopping) {
                        return derived;
                    }
                    if (underived.sentryWrittenAt().isAfter(writtenBefore)
                            || derivations.waitsFor(underived.key().stem())) {
                        continue;
                    }
                    try {
                        if (derivations.deriveUnderived(ProjectIds.ofFolder(project), underived.key(), true)
                                == ChunkDerivations.Outcome.DERIVED) {
                            derived++;
                        }
                    } catch (ArchiveUnavailableException e) {
                        LOG.warn("recovering chunk {} failed, archive unavailable (the next search tries again): {}",
                                underived.key().stem(), e.getMessage());
                    }
                }
            }
        }
        return derived;
    }

    /** What {@link #deriveForReplay} did: chunks derived, and chunks the relay failed on (left underived). */
    public record ReplayDerivations(int derived, int failed) {
    }

    /**
     * Derives, without forwarding, the chunks of a project and days whose OTLP form is missing and whose window has
     * passed.
     *
     * @throws ArchiveUnavailableException when the archive cannot be listed, read or written
     */
    public ReplayDerivations deriveForReplay(String projectId, LocalDate from, LocalDate to) {
        Instant writtenBefore = writtenBefore();
        int derived = 0;
        int failed = 0;
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            for (UnderivedChunk underived : archive.listUnderived(projectId, day)) {
                if (!underived.sentryWrittenAt().isAfter(writtenBefore)) {
                    if (derivations.deriveUnderived(ProjectIds.ofFolder(projectId), underived.key(), false)
                            == ChunkDerivations.Outcome.DERIVED) {
                        derived++;
                    } else {
                        failed++;
                    }
                }
            }
        }
        return new ReplayDerivations(derived, failed);
    }

    /** A chunk written before this is past its window and the grace its own relay has. */
    private Instant writtenBefore() {
        return clock.instant().minus(config.window()).minus(RECOVERY_GRACE);
    }

    /**
     * Stops searching, has the derivations derive what still waits (their own stop step, which ran just before this
     * one, already has), and removes this relay's heartbeat when nothing was left; what is left keeps it, so that a
     * peer searches for it (or the next relay to start does).
     */
    private void stop(Duration left) {
        stopping = true;
        if (derivations.stop(left)) {
            try {
                heartbeats.stopped();
            } catch (ArchiveUnavailableException e) {
                LOG.warn("could not remove this relay's heartbeat; a peer will search the archive: {}",
                        e.getMessage());
            }
        }
    }
}
