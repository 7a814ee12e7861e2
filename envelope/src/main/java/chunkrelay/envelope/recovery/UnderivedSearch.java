package chunkrelay.envelope.recovery;

import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.schedule.DueWork;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveHeartbeats;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.UnderivedChunk;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The search of the archive for chunks left underived (the derivations' recovery): at start, then, while
 * chunks wait for their window, a heartbeat ({@code derivers/{id}}, {@link ArchiveHeartbeats}) every recovery
 * interval with a search only when another relay stopped beating. Its rounds are kept on the clock ({@link DueWork}),
 * each arming the next when it is done.
 */
public final class UnderivedSearch {
    private static final Logger LOG = LoggerFactory.getLogger(UnderivedSearch.class);
    /** A chunk is left to its own relay for this long after its window before a search takes it. */
    public static final Duration RECOVERY_GRACE = Duration.ofSeconds(10);
    /** The newest day folders of a project a search looks at, besides today and yesterday. */
    private static final int RECENT_DAY_FOLDERS = 2;

    /** Derives one chunk from its archived Sentry form. */
    public interface Derivation {
        void derive(long projectId, ArchiveKey key, boolean forward);
    }

    private final LinksConfig config;
    private final ChunkArchive archive;
    private final MeterRegistry meters;
    private final Clock clock;
    private final DueWork due;
    /** Whether this relay itself waits for a chunk (by stem): a search leaves those alone. */
    private final Predicate<String> waiting;
    private final Derivation derivation;
    private final Counter searches;
    /** {@code derivers/{id}}: relays that may hold chunks waiting for their window. */
    private final ArchiveHeartbeats heartbeats;
    /** The search at start has run; until then a round is that search. */
    private volatile boolean started;
    /** The search at start failed (the archive was down): the next round runs it again. */
    private volatile boolean startMissed;
    private volatile boolean stopping;

    public UnderivedSearch(LinksConfig config, ChunkArchive archive, MeterRegistry meters, Clock clock, DueWork due,
                    Predicate<String> waiting, Derivation derivation) {
        this.config = config;
        this.archive = archive;
        this.meters = meters;
        this.clock = clock;
        this.due = due;
        this.waiting = waiting;
        this.derivation = derivation;
        this.searches = RelayMeter.RECOVERY_SEARCHES.counter(meters);
        // a dead relay wrote its last chunk before the beat it missed: by the time its heartbeat is this old, every
        // chunk it left is due, and one search finds them all
        Duration allDue = config.recoveryInterval().plus(config.window()).plus(RECOVERY_GRACE);
        Duration missedBeats = config.recoveryInterval().multipliedBy(3);
        this.heartbeats = new ArchiveHeartbeats(archive.store(), ArchiveLayout.DERIVERS,
                config.recoveryInterval(), allDue.compareTo(missedBeats) > 0 ? allDue : missedBeats, clock);
    }

    /** The first round, a little after start; it arms the next. */
    public void armAtStart() {
        due.after(Duration.ofMillis(Math.min(config.recoveryInterval().toMillis(), 2_000)), this::round);
    }

    /** No window, so no heartbeat: one search at start finds what a relay killed between a chunk's writes left. */
    public void searchAtStart() {
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
        heartbeats.beatOnce();
    }

    private void round() {
        if (started) {
            recoverDeadPeers();
        } else {
            started = true;
            recoverAtStart();
        }
        if (!stopping) {
            due.after(config.recoveryInterval(), this::round);
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
        LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
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
                            || waiting.test(underived.key().stem())) {
                        continue;
                    }
                    try {
                        derivation.derive(Long.parseLong(project), underived.key(), true);
                        derived++;
                    } catch (RuntimeException | StackOverflowError e) {
                        RelayMeter.DERIVATIONS_FAILURES.counter(meters).increment();
                        LOG.error("recovering chunk {} failed", underived.key().stem(), e);
                    }
                }
            }
        }
        return derived;
    }

    /**
     * Derives, without forwarding, the chunks of a project and days whose OTLP form is missing and whose window has
     * passed. Returns how many it derived.
     */
    public int deriveForReplay(String projectId, LocalDate from, LocalDate to) {
        Instant writtenBefore = writtenBefore();
        int derived = 0;
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            for (UnderivedChunk underived : archive.listUnderived(projectId, day)) {
                if (!underived.sentryWrittenAt().isAfter(writtenBefore)) {
                    derivation.derive(Long.parseLong(projectId), underived.key(), false);
                    derived++;
                }
            }
        }
        return derived;
    }

    /** A chunk written before this is past its window and the grace its own relay has. */
    private Instant writtenBefore() {
        return clock.instant().minus(config.window()).minus(RECOVERY_GRACE);
    }

    public void stop() {
        stopping = true;
    }

    /** Removes this relay's heartbeat: it stopped with nothing left waiting. */
    public void stopped() {
        heartbeats.stopped();
    }
}
