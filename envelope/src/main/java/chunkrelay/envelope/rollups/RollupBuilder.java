package chunkrelay.envelope.rollups;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds rollups ahead of queries, every {@code relay.rollups.interval}: each minute of each project once it has
 * settled ({@code relay.rollups.delay} after its end), each ten minutes, hour and day once all of their minutes have,
 * and again every rollup a late chunk belongs in, then takes the chunk off the late queue. Every replica runs it;
 * builds are idempotent, so the replicas need no coordinator. A starting relay looks back {@code
 * relay.rollups.lookback} for minutes left without a rollup. Runs in the server only, on one thread of its own, every
 * interval of the relay's clock ({@link ClockedSchedule}); on the same thread, every {@value #SHARE_SECONDS} s at most,
 * it shares this relay's partial rollups of the open minutes with the other replicas ({@link OpenMinutes#share}),
 * whether it builds rollups or not, and once more at its stop.
 */
@Singleton
@Requires(notEnv = Environment.CLI)
public class RollupBuilder implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(RollupBuilder.class);
    private static final long MINUTE = TimeBuckets.MINUTE_NANOS;
    /** How stale another replica's partial of an open minute may be: its chunks derived since are read whole. */
    private static final long SHARE_SECONDS = 5;

    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupBuilds builds;
    private final RollupCascade cascade;
    private final TimeBuckets buckets;
    private final RollupConfig config;
    private final Clock clock;
    private final MeterRegistry meters;
    private final AtomicInteger lateChunks;
    /** Per project, the newest minute examined; builder thread only. */
    private final Map<String, Long> examinedUpTo = new HashMap<>();
    /** Per project, the coarser buckets with minutes built whose own rollup is still due; builder thread only. */
    private final Map<String, RollupCascade.Due> due = new HashMap<>();
    private final ClockedSchedule schedule;
    private final OpenMinutes openMinutes;

    public RollupBuilder(ChunkArchive archive, ChunkTimeIndex index, RollupBuilds builds, RollupCascade cascade,
                         TimeBuckets buckets, OpenMinutes openMinutes, RollupConfig config, Clock clock,
                         MeterRegistry meters, BackgroundWork work) {
        this.archive = archive;
        this.openMinutes = openMinutes;
        this.index = index;
        this.builds = builds;
        this.cascade = cascade;
        this.buckets = buckets;
        this.config = config;
        this.clock = clock;
        this.meters = meters;
        this.lateChunks = new AtomicInteger();
        RelayMeter.ROLLUPS_LATE_CHUNKS.gauge(meters, lateChunks, AtomicInteger::get);
        this.schedule = work.schedule("rollup-builder");
        work.atStop(BackgroundWork.Stage.PERIODIC, "shared partials of open minutes", left -> shareAtStop());
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        if (config.enabled()) {
            schedule.every(config.interval(), config.interval(), this::runQuietly);
        }
        Duration share = Duration.ofSeconds(Math.max(1, Math.min(SHARE_SECONDS, config.interval().toSeconds())));
        schedule.every(share, share, this::shareQuietly);
    }

    /**
     * The partials once more, after the derivations' stop derived what waited: they stay in the bucket, naming
     * exactly what this relay derived, for the other replicas and the relay that follows this one.
     */
    private void shareAtStop() {
        try {
            openMinutes.share();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("partials of open minutes not shared at stop, the archive is unavailable (the next relay reads"
                    + " their chunks whole until their minutes are rolled up): {}", e.getMessage());
        }
    }

    private void shareQuietly() {
        try {
            openMinutes.share();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("partials of open minutes not shared this round, the archive is unavailable: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("sharing partials of open minutes failed", e);
        }
    }

    private void runQuietly() {
        try {
            runOnce();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("rollups not built this round, the archive is unavailable: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("building rollups failed", e);
        }
    }

    /** One round over every project: settled minutes, due ten minutes, hours and days, late chunks. */
    public synchronized void runOnce() {
        int late = 0;
        for (String project : archive.listProjects()) {
            buildSettled(project);
            late += cascade.absorbLate(project, this::built);
        }
        lateChunks.set(late);
    }

    /** Builds the rollups of minutes settled since the last round (at start: within the lookback). */
    private void buildSettled(String project) {
        long now = buckets.now();
        long lastSettled = buckets.lastSettledMinute();
        Long examined = examinedUpTo.get(project);
        List<Long> unbuilt = new ArrayList<>();
        if (examined == null) {
            // at start, one listing per day of the minutes indexed and of the minutes built
            long since = now - config.lookback().toNanos();
            for (LocalDate day = TimeBuckets.dayOf(since); !day.isAfter(TimeBuckets.dayOf(lastSettled));
                 day = day.plusDays(1)) {
                Set<Long> built = builds.minutesBuilt(project, day);
                Set<Long> overlapped = new TreeSet<>();
                for (long start : index.minutes(project, day)) {
                    // a chunk reaches into the two minutes after the one it starts in
                    for (int after = 0; after <= ChunkTimeIndex.LOOK_BEHIND_MINUTES; after++) {
                        overlapped.add(start + after * MINUTE);
                    }
                }
                for (long minute : overlapped) {
                    if (minute >= since && minute <= lastSettled) {
                        // a relay stopped before the coarser rollups: they are due again
                        due(project).minute(minute);
                        if (!built.contains(minute)) {
                            unbuilt.add(minute);
                        }
                    }
                }
            }
        } else {
            for (long minute = examined + MINUTE; minute <= lastSettled; minute += MINUTE) {
                if (builds.newest(project, RollupTier.MINUTE, minute).isEmpty()) {
                    unbuilt.add(minute);
                }
            }
        }
        List<Long> later = cascade.buildMinutes(project, unbuilt, due(project), this::built);
        // a minute left for later is examined again next round, with every minute after it
        long upTo = later.isEmpty() ? lastSettled : Collections.min(later) - MINUTE;
        examinedUpTo.put(project, Math.max(upTo, examined == null ? upTo : examined));
        cascade.buildDue(project, due(project), this::built);
    }

    private RollupCascade.Due due(String project) {
        return due.computeIfAbsent(project, p -> new RollupCascade.Due());
    }

    private void built(RollupTier tier) {
        RelayMeter.ROLLUPS_BUILT.counter(meters, tier.name().toLowerCase(java.util.Locale.ROOT)).increment();
    }
}
