package chunkrelay.storage;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The archive's index by time: one empty object per chunk, under the UTC minute of its first sample, named so that a
 * listing of one minute gives each chunk's key and sample span without reading anything:
 * {@code index/{project}/{yyyy-mm-dd}/{HHmm}/{first sample ns}.{last sample ns}.{profiler}.{chunk}}. A chunk covers
 * at most 66 s (Relay's limit, which the relay enforces), so the chunks overlapping a minute are found in it and the
 * two minutes before it. A query of a range lists the minutes it needs, whatever else its days hold.
 *
 * <p>Rollups of a minute are built once it has settled ({@link TimeBuckets}). A chunk whose minute may have settled
 * by the time its index entry is visible is also put in the late queue,
 * {@code late/{project}/{yyyy-mm-dd}/{HHmm}/{same name}}, before its index entry, so that whoever builds the
 * minute's rollup can tell which chunks it holds are late, and a query adds a late chunk raw while no rollup it reads
 * holds it. Both prefixes are per project and day, for retention. Thread-safe.
 */
public final class ChunkTimeIndex {
    /** How many minutes before a minute a chunk overlapping it may start: a chunk covers at most 66 s. */
    public static final int LOOK_BEHIND_MINUTES = 2;
    private static final byte[] EMPTY = new byte[0];

    private final ObjectStore store;
    private final TimeBuckets buckets;
    private final Duration lateMargin;

    /**
     * @param buckets    when a minute settles (its rollup is built)
     * @param lateMargin how long before the minute settles a chunk already counts as late: at least the time an
     *                   index write may take (the store's deadline), so that no entry lands unseen after a build
     */
    public ChunkTimeIndex(ObjectStore store, TimeBuckets buckets, Duration lateMargin) {
        this.store = store;
        this.buckets = buckets;
        this.lateMargin = lateMargin;
    }

    /**
     * One chunk in the index, or in the late queue of one minute.
     *
     * @param minuteNanos the minute it is listed for: where it starts (index), or the minute it is late for (queue)
     */
    public record Entry(ArchiveKey key, long firstSampleNanos, long lastSampleNanos, long minuteNanos) {
        /** The entry's name in its minute folder. */
        public String name() {
            return firstSampleNanos + "." + lastSampleNanos + "." + key.profilerId() + "." + key.chunkId();
        }

        /** Whether the chunk's samples reach into {@code [fromNanos, toNanos)}. */
        public boolean overlaps(long fromNanos, long toNanos) {
            return firstSampleNanos < toNanos && lastSampleNanos >= fromNanos;
        }

        /** The late-queue name of this entry: its minute and name, unique per chunk and minute. */
        public String lateName() {
            return minuteFolder(key.projectId(), minuteNanos) + name();
        }
    }

    /**
     * Files a chunk under the minute of its first sample; each minute its samples overlap that may have settled gets
     * a late entry first. Idempotent: a retried or duplicate chunk writes the same objects again.
     *
     * @throws ArchiveUnavailableException when the store cannot be written within its deadline
     */
    public void record(ArchiveKey key, long firstSampleNanos, long lastSampleNanos) {
        record(key, firstSampleNanos, lastSampleNanos, true);
    }

    /**
     * Files a chunk without the late queue: for a caller that builds the minutes' rollups itself afterwards
     * (reindexing an archive written before the index).
     */
    public void recordForRebuild(ArchiveKey key, long firstSampleNanos, long lastSampleNanos) {
        record(key, firstSampleNanos, lastSampleNanos, false);
    }

    private void record(ArchiveKey key, long firstSampleNanos, long lastSampleNanos, boolean lateCheck) {
        long last = Math.max(firstSampleNanos, lastSampleNanos);
        if (lateCheck) {
            for (long minute = TimeBuckets.minuteOf(firstSampleNanos); minute <= last;
                 minute += TimeBuckets.MINUTE_NANOS) {
                if (buckets.late(minute, lateMargin)) {
                    store.storeObject(ArchiveLayout.LATE + new Entry(key, firstSampleNanos, last, minute).lateName(), EMPTY);
                }
            }
        }
        Entry entry = new Entry(key, firstSampleNanos, last, TimeBuckets.minuteOf(firstSampleNanos));
        store.storeObject(ArchiveLayout.INDEX + entry.lateName(), EMPTY);
    }

    /** The chunks whose samples overlap one minute of a project: those filed under it and the two before. */
    public List<Entry> overlapping(String projectId, long minuteNanos) {
        List<Entry> entries = new ArrayList<>();
        for (int behind = LOOK_BEHIND_MINUTES; behind >= 0; behind--) {
            for (Entry entry : startingIn(projectId, minuteNanos - behind * TimeBuckets.MINUTE_NANOS)) {
                if (entry.overlaps(minuteNanos, minuteNanos + TimeBuckets.MINUTE_NANOS)) {
                    entries.add(new Entry(entry.key(), entry.firstSampleNanos(), entry.lastSampleNanos(),
                            minuteNanos));
                }
            }
        }
        return entries;
    }

    /**
     * Visits each chunk whose samples overlap {@code [fromNanos, toNanos)} of a project once, by the minute it starts
     * in (the range's minutes and the two before), until {@code visit} returns false. Costs one listing per minute.
     */
    public void overlappingRange(String projectId, long fromNanos, long toNanos, Predicate<Entry> visit) {
        Set<ArchiveKey> seen = new HashSet<>();
        for (long minute = TimeBuckets.minuteOf(fromNanos) - LOOK_BEHIND_MINUTES * TimeBuckets.MINUTE_NANOS;
             minute < toNanos; minute += TimeBuckets.MINUTE_NANOS) {
            for (Entry entry : startingIn(projectId, minute)) {
                if (entry.overlaps(fromNanos, toNanos) && seen.add(entry.key()) && !visit.test(entry)) {
                    return;
                }
            }
        }
    }

    /** The chunks filed under one minute of a project (their first sample lies in it), in name order. */
    public List<Entry> startingIn(String projectId, long minuteNanos) {
        ArchiveKey.checkPart("project id", projectId);
        List<Entry> entries = new ArrayList<>();
        String folder = ArchiveLayout.INDEX + minuteFolder(projectId, minuteNanos);
        for (String key : store.listObjects(folder)) {
            parse(projectId, minuteNanos, key.substring(folder.length())).ifPresent(entries::add);
        }
        return entries;
    }

    /** The late queue of a project, every day of it. */
    public List<Entry> late(String projectId) {
        ArchiveKey.checkPart("project id", projectId);
        List<Entry> entries = new ArrayList<>();
        String folder = ArchiveLayout.LATE + projectId + "/";
        for (String key : store.listObjects(folder)) {
            // {day}/{HHmm}/{name}
            String[] parts = key.substring(folder.length()).split("/", 3);
            if (parts.length == 3) {
                try {
                    long minute = TimeBuckets.parse(RollupTier.MINUTE, LocalDate.parse(parts[0]), parts[1]);
                    parse(projectId, minute, parts[2]).ifPresent(entries::add);
                } catch (RuntimeException notAnEntry) {
                    // an object someone else put there: not ours to read
                }
            }
        }
        return entries;
    }

    /** Puts a chunk in the late queue (a rollup was built without it, its form not yet derived). */
    public void markLate(Entry entry) {
        store.storeObject(ArchiveLayout.LATE + entry.lateName(), EMPTY);
    }

    /** Takes an entry off the late queue once every rollup that covers its minute holds it. */
    public void removeLate(Entry entry) {
        store.deleteObject(ArchiveLayout.LATE + entry.lateName());
    }

    /** The days of a project that have index entries, oldest first. */
    public List<LocalDate> days(String projectId) {
        return ArchiveLayout.dayFolders(store, ArchiveLayout.INDEX + projectId + "/");
    }

    /** The minutes of a project's day that chunks start in, oldest first (Unix nanoseconds). */
    public List<Long> minutes(String projectId, LocalDate day) {
        List<Long> minutes = new ArrayList<>();
        for (String folder : store.listFolders(ArchiveLayout.INDEX + projectId + "/" + day + "/")) {
            try {
                minutes.add(TimeBuckets.parse(RollupTier.MINUTE, day, folder));
            } catch (RuntimeException notAMinute) {
                // not ours
            }
        }
        return minutes;
    }

    static String minuteFolder(String projectId, long minuteNanos) {
        return projectId + "/" + TimeBuckets.minutePath(minuteNanos) + "/";
    }

    private static Optional<Entry> parse(String projectId, long minuteNanos, String name) {
        String[] parts = name.split("\\.", 4);
        if (parts.length != 4) {
            return Optional.empty();
        }
        try {
            long first = Long.parseLong(parts[0]);
            long last = Long.parseLong(parts[1]);
            ArchiveKey key = ArchiveKey.of(projectId, Instant.ofEpochSecond(0, first), parts[2], parts[3]);
            return Optional.of(new Entry(key, first, last, minuteNanos));
        } catch (IllegalArgumentException notAnEntry) {
            return Optional.empty();
        }
    }
}
