package chunkrelay.envelope.rollups;

import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.Rollup;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The minute → ten minutes → hour → day cascade, for the builder and the {@code reindex} command alike: a minute's
 * rollup is built once the minute has settled, and makes its ten minutes due; due ten minutes, hours and days are
 * brought up to date once their last minute has settled (built again when the newest version holds fewer chunks than
 * its parts' newest together), each making the bucket it is part of due in turn. Late chunks go down the same cascade
 * ({@link #absorbLate}). What is built is told to a {@code built} listener, by tier.
 */
@Singleton
public class RollupCascade {
    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupBuilds builds;
    private final TimeBuckets buckets;
    private final OpenMinutes openMinutes;

    public RollupCascade(ChunkArchive archive, ChunkTimeIndex index, RollupBuilds builds, TimeBuckets buckets,
                         OpenMinutes openMinutes) {
        this.archive = archive;
        this.index = index;
        this.builds = builds;
        this.buckets = buckets;
        this.openMinutes = openMinutes;
    }

    /** The ten minutes, hours and days of one project whose rollups are due, a part of them built. Not thread-safe. */
    public static final class Due {
        private final Set<Long> tens = new TreeSet<>();
        private final Set<Long> hours = new TreeSet<>();
        private final Set<Long> days = new TreeSet<>();

        /** A minute has a rollup (or may have one not yet in its ten minutes'): its ten minutes are due. */
        public void minute(long minuteNanos) {
            tens.add(TimeBuckets.bucketOf(RollupTier.TEN_MINUTES, minuteNanos));
        }
    }

    /**
     * Builds the rollup of each minute that has settled, from the index, taking the chunks this relay derived from
     * what its open minute merged of them; each one built makes its ten minutes due. A minute whose open minute still
     * counts chunks from receipt that are not derived yet (their derivation lags behind the load) is left for a later
     * round: queries answer a minute from its rollup once there is one, and a rollup built now would leave those
     * chunks out of every answer until they are derived and taken in as late chunks.
     *
     * @return the minutes left for a later round, in the order given
     */
    public List<Long> buildMinutes(String project, Collection<Long> minutes, Due due, Consumer<RollupTier> built) {
        List<Long> later = new ArrayList<>();
        for (long minute : minutes) {
            if (!buckets.settled(minute)) {
                continue;
            }
            if (openMinutes.countsUnderived(project, minute)) {
                later.add(minute);
            } else if (firstRollup(project, minute).isPresent()) {
                built.accept(RollupTier.MINUTE);
                due.minute(minute);
            }
        }
        return later;
    }

    /**
     * A minute's first rollup, from its index, the chunks this relay derived taken from its open minute's rollups of
     * them rather than read back; empty when no chunk of it is derived.
     */
    private Optional<RollupObjects.Version> firstRollup(String project, long minute) {
        return builds.buildMinute(project, minute, openMinutes.derivedRollups(project, minute));
    }

    /**
     * Brings the due ten minutes that have settled up to date, then the due hours, then days; the others stay due, and
     * so does a bucket while a part of it is still to come: a minute of it waiting for chunks this relay counts from
     * receipt (its rollup left for a later round), or a finer bucket of it still due. Queries take the coarsest rollup
     * that covers a range, so a bucket built without such a part would leave its chunks out of every answer until the
     * part is built and the bucket again.
     */
    public void buildDue(String project, Due due, Consumer<RollupTier> built) {
        buildDue(project, RollupTier.TEN_MINUTES, due.tens, due.hours, built, Set.of());
        buildDue(project, RollupTier.HOUR, due.hours, due.days, built, due.tens);
        buildDue(project, RollupTier.DAY, due.days, null, built, due.hours);
    }

    /**
     * Puts every late chunk of a project whose form is derived into the rollups of its settled minute, ten minutes,
     * hour and day, and takes it off the late queue once they all hold it (see docs/archive.md, late chunks).
     *
     * @return how many late entries the queue held
     */
    public int absorbLate(String project, Consumer<RollupTier> built) {
        Map<Long, List<ChunkTimeIndex.Entry>> byMinute = new TreeMap<>();
        for (ChunkTimeIndex.Entry entry : index.late(project)) {
            byMinute.computeIfAbsent(entry.minuteNanos(), m -> new ArrayList<>()).add(entry);
        }
        for (Map.Entry<Long, List<ChunkTimeIndex.Entry>> minute : byMinute.entrySet()) {
            if (!buckets.settled(minute.getKey())) {
                continue;
            }
            Optional<Rollup> newest = builds.newest(project, RollupTier.MINUTE, minute.getKey()).flatMap(builds::read);
            if (newest.isEmpty() && openMinutes.countsUnderived(project, minute.getKey())) {
                // as in buildMinutes: its first rollup waits for the chunks this relay counts from receipt
                continue;
            }
            Optional<Rollup> rollup = newest;
            if (newest.isEmpty() || lacksDerived(newest.get(), minute.getValue())) {
                // a minute with a rollup takes its late chunks in; one without is built from its index
                Optional<RollupObjects.Version> rebuilt = newest.isEmpty()
                        ? firstRollup(project, minute.getKey())
                        : builds.absorb(project, minute.getKey(), newest.get(), minute.getValue());
                rebuilt.ifPresent(v -> built.accept(RollupTier.MINUTE));
                rollup = rebuilt.isPresent() ? rebuilt.flatMap(builds::read) : newest;
            }
            boolean coarserHold = coarserHold(project, minute.getKey(), built);
            if (rollup.isPresent() && coarserHold) {
                for (ChunkTimeIndex.Entry entry : minute.getValue()) {
                    if (rollup.get().included().contains(entry.name())) {
                        index.removeLate(entry);
                    }
                }
            }
        }
        return byMinute.values().stream().mapToInt(List::size).sum();
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
     * Whether the ten minutes, the hour and the day of a minute hold the minute's newest rollup, or have not settled
     * yet: a settled one that does not is brought up to date first, finest first, since each is made of the finer.
     */
    private boolean coarserHold(String project, long minute, Consumer<RollupTier> built) {
        boolean hold = true;
        for (RollupTier tier = RollupTier.TEN_MINUTES; tier != null; tier = tier.coarser()) {
            long bucket = TimeBuckets.bucketOf(tier, minute);
            hold &= !buckets.settled(tier, bucket) || ensure(project, tier, bucket, built);
        }
        return hold;
    }

    private void buildDue(String project, RollupTier tier, Set<Long> due, Set<Long> dueNext,
                          Consumer<RollupTier> built, Set<Long> finerDue) {
        for (Long bucket : new ArrayList<>(due)) {
            long end = bucket + tier.bucketNanos();
            if (!buckets.settled(tier, bucket) || openMinutes.countsUnderivedIn(project, bucket, end)
                    || finerDue.stream().anyMatch(part -> part >= bucket && part < end)) {
                continue;
            }
            ensure(project, tier, bucket, built);
            due.remove(bucket);
            if (dueNext != null) {
                dueNext.add(TimeBuckets.bucketOf(tier.coarser(), bucket));
            }
        }
    }

    /**
     * Builds the rollup of ten minutes, an hour or a day when its newest version holds fewer chunks than its parts'
     * newest; true when it is up to date after.
     */
    private boolean ensure(String project, RollupTier tier, long bucket, Consumer<RollupTier> built) {
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
        rebuilt.ifPresent(v -> built.accept(tier));
        return rebuilt.isPresent() && rebuilt.get().chunks() >= expected;
    }
}
