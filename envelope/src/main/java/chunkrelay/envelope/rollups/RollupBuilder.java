package chunkrelay.envelope.rollups;

import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.translate.view.Rollup;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds rollups ahead of queries, every {@code relay.rollups.interval}: each minute of each project once it has
 * settled ({@code relay.rollups.delay} after its end), each hour and day once all of their minutes have, and again
 * every rollup a late chunk belongs in, then takes the chunk off the late queue. Every replica runs it; builds are
 * idempotent, so the replicas need no coordinator. A starting relay looks back {@code relay.rollups.lookback} for
 * minutes left without a rollup. Runs in the server only, on one thread of its own, every interval of the relay's clock
 * ({@link ClockedSchedule}); on the same thread, every {@value #SHARE_SECONDS} s at most, it shares this relay's
 * partial rollups of the open minutes with the other replicas ({@link OpenMinutes#share}), whether it builds
 * rollups or not.
 */
@Singleton
@Requires(notEnv = Environment.CLI)
public class RollupBuilder implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(RollupBuilder.class);
    private static final long MINUTE = ChunkTimeIndex.MINUTE_NANOS;
    /** How stale another replica's partial of an open minute may be: its chunks derived since are read whole. */
    private static final long SHARE_SECONDS = 5;

    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupBuilds builds;
    private final RollupConfig config;
    private final Clock clock;
    private final MeterRegistry meters;
    private final AtomicInteger lateChunks;
    /** Per project, the newest minute examined; builder thread only. */
    private final Map<String, Long> examinedUpTo = new HashMap<>();
    /** Per project, hours and days with minutes built whose own rollup is still due; builder thread only. */
    private final Map<String, Set<Long>> dueHours = new HashMap<>();
    private final Map<String, Set<Long>> dueDays = new HashMap<>();
    private final ClockedSchedule schedule;
    private final OpenMinutes openMinutes;

    public RollupBuilder(ChunkArchive archive, ChunkTimeIndex index, RollupBuilds builds, OpenMinutes openMinutes,
                         RollupConfig config, Clock clock, MeterRegistry meters) {
        this.archive = archive;
        this.openMinutes = openMinutes;
        this.index = index;
        this.builds = builds;
        this.config = config;
        this.clock = clock;
        this.meters = meters;
        this.lateChunks = new AtomicInteger();
        RelayMeter.ROLLUPS_LATE_CHUNKS.gauge(meters, lateChunks, AtomicInteger::get);
        this.schedule = new ClockedSchedule("rollup-builder", clock);
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        if (config.enabled()) {
            schedule.every(config.interval(), config.interval(), this::runQuietly);
        }
        Duration share = Duration.ofSeconds(Math.max(1, Math.min(SHARE_SECONDS, config.interval().toSeconds())));
        schedule.every(share, share, this::shareQuietly);
    }

    @PreDestroy
    void stop() throws InterruptedException {
        schedule.stopNow(Duration.ofSeconds(10));
        try {
            openMinutes.unshare();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("partials of open minutes left in the bucket at stop (they expire with their day): {}",
                    e.getMessage());
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

    /** One round over every project: settled minutes, due hours and days, late chunks. */
    public synchronized void runOnce() {
        int late = 0;
        for (String project : archive.listProjects()) {
            buildSettled(project);
            late += absorbLate(project);
        }
        lateChunks.set(late);
    }

    /** Builds the rollups of minutes settled since the last round (at start: within the lookback). */
    private void buildSettled(String project) {
        long now = nanos(clock.instant());
        long lastSettled = ChunkTimeIndex.minuteOf(now - MINUTE - index.settle().toNanos());
        Long examined = examinedUpTo.get(project);
        List<Long> unbuilt = new ArrayList<>();
        if (examined == null) {
            // at start, one listing per day of the minutes indexed and of the minutes built
            long since = now - config.lookback().toNanos();
            for (LocalDate day = RollupBuilds.dayOf(since); !day.isAfter(RollupBuilds.dayOf(lastSettled));
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
                        // a relay stopped before an hour's rollup: its hours are due again
                        dueHours.computeIfAbsent(project, p -> new TreeSet<>()).add(RollupTier.HOUR.bucketOf(minute));
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
        for (long minute : unbuilt) {
            if (builds.buildMinute(project, minute).isPresent()) {
                built(RollupTier.MINUTE);
                dueHours.computeIfAbsent(project, p -> new TreeSet<>()).add(RollupTier.HOUR.bucketOf(minute));
            }
        }
        examinedUpTo.put(project, Math.max(lastSettled, examined == null ? lastSettled : examined));
        buildDue(project, RollupTier.HOUR, dueHours, dueDays);
        buildDue(project, RollupTier.DAY, dueDays, null);
    }

    /** Builds the due buckets of a tier that have settled; what they belong to becomes due in turn. */
    private void buildDue(String project, RollupTier tier, Map<String, Set<Long>> due,
                          Map<String, Set<Long>> dueNext) {
        Set<Long> buckets = due.getOrDefault(project, Set.of());
        for (Long bucket : new ArrayList<>(buckets)) {
            if (!settled(tier, bucket)) {
                continue;
            }
            ensure(project, tier, bucket);
            buckets.remove(bucket);
            if (dueNext != null) {
                dueNext.computeIfAbsent(project, p -> new TreeSet<>()).add(tier.coarser().bucketOf(bucket));
            }
        }
    }

    /**
     * Puts every late chunk whose form is derived into the rollups of its minute, hour and day, and takes it off the
     * late queue once they all hold it. Returns how many chunks were in the project's late queue.
     */
    private int absorbLate(String project) {
        Map<Long, List<ChunkTimeIndex.Entry>> byMinute = new TreeMap<>();
        for (ChunkTimeIndex.Entry entry : index.late(project)) {
            byMinute.computeIfAbsent(entry.minuteNanos(), m -> new ArrayList<>()).add(entry);
        }
        int queued = byMinute.values().stream().mapToInt(List::size).sum();
        for (Map.Entry<Long, List<ChunkTimeIndex.Entry>> minute : byMinute.entrySet()) {
            if (!index.settled(minute.getKey())) {
                continue;
            }
            Optional<Rollup> newest = builds.newest(project, RollupTier.MINUTE, minute.getKey()).flatMap(builds::read);
            Optional<Rollup> rollup = newest;
            if (newest.isEmpty() || lacksDerived(newest.get(), minute.getValue())) {
                // a minute with a rollup takes its late chunks in; one without is built from its index
                Optional<RollupObjects.Version> rebuilt = newest.isEmpty()
                        ? builds.buildMinute(project, minute.getKey())
                        : builds.absorb(project, minute.getKey(), newest.get(), minute.getValue());
                rebuilt.ifPresent(v -> built(RollupTier.MINUTE));
                rollup = rebuilt.isPresent() ? rebuilt.flatMap(builds::read) : newest;
            }
            long hour = RollupTier.HOUR.bucketOf(minute.getKey());
            long day = RollupTier.DAY.bucketOf(minute.getKey());
            boolean hourHolds = !settled(RollupTier.HOUR, hour) || ensure(project, RollupTier.HOUR, hour);
            boolean dayHolds = !settled(RollupTier.DAY, day) || ensure(project, RollupTier.DAY, day);
            if (rollup.isPresent() && hourHolds && dayHolds) {
                for (ChunkTimeIndex.Entry entry : minute.getValue()) {
                    if (rollup.get().included().contains(entry.name())) {
                        index.removeLate(entry);
                    }
                }
            }
        }
        return queued;
    }

    /** Whether a minute's rollup lacks one of its late chunks that is derived by now. */
    private boolean lacksDerived(Rollup rollup, List<ChunkTimeIndex.Entry> late) {
        for (ChunkTimeIndex.Entry entry : late) {
            if (!rollup.included().contains(entry.name()) && archive.derivedMetadata(entry.key()).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Builds an hour's or day's rollup when its newest version holds fewer chunks than its parts' newest; true when
     * it is up to date after.
     */
    private boolean ensure(String project, RollupTier tier, long bucket) {
        long expected = builds.parts(project, tier, bucket).values().stream()
                .mapToLong(RollupObjects.Version::chunks).sum();
        if (expected == 0) {
            return true;
        }
        Optional<RollupObjects.Version> newest = builds.newest(project, tier, bucket);
        if (newest.isPresent() && newest.get().chunks() >= expected) {
            return true;
        }
        Optional<RollupObjects.Version> rebuilt = builds.buildFromParts(project, tier, bucket);
        rebuilt.ifPresent(v -> built(tier));
        return rebuilt.isPresent() && rebuilt.get().chunks() >= expected;
    }

    private boolean settled(RollupTier tier, long bucket) {
        long lastMinute = bucket + tier.bucketNanos() - MINUTE;
        return index.settled(lastMinute);
    }

    private void built(RollupTier tier) {
        RelayMeter.ROLLUPS_BUILT.counter(meters, tier.name().toLowerCase(java.util.Locale.ROOT)).increment();
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }
}
