package chunkrelay.envelope.rollups;

import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.storage.UnderivedChunk;
import jakarta.inject.Singleton;

import java.time.LocalDate;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Brings an archive written before the index by time up to date, for the {@code reindex} command: files every chunk of
 * a project's days in the index, then builds the rollups of every settled minute, ten minutes, hour and day it filed
 * them under ({@link RollupCascade}, as the builder does). Safe beside running relays: index entries and rollup
 * versions are written idempotently.
 */
@Singleton
public class ArchiveReindex {
    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupCascade cascade;

    public ArchiveReindex(ChunkArchive archive, ChunkTimeIndex index, RollupCascade cascade) {
        this.archive = archive;
        this.index = index;
        this.cascade = cascade;
    }

    /** What one reindex did. */
    public record Summary(String projectId, LocalDate from, LocalDate to, int indexed, int withoutTimes,
                          int minutes, int tens, int hours, int days) {
        public String describe() {
            return "reindex of project " + projectId + ", " + from + ".." + to + ": chunks indexed " + indexed
                    + ", without sample times (left out) " + withoutTimes + ", rollups built " + minutes
                    + " minutes, " + tens + " ten minutes, " + hours + " hours, " + days + " days";
        }
    }

    /**
     * Indexes the chunks of a project whose first sample lies in the UTC days {@code [from, to]} and builds their
     * rollups.
     *
     * @throws chunkrelay.storage.ArchiveUnavailableException when the archive cannot be read or written
     */
    public Summary reindex(String projectId, LocalDate from, LocalDate to) {
        int indexed = 0;
        int withoutTimes = 0;
        Set<Long> minutes = new TreeSet<>();
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            for (ArchivedChunk chunk : archive.list(projectId, day, day)) {
                if (file(chunk.key(), archive.metadata(chunk), minutes)) {
                    indexed++;
                } else {
                    withoutTimes++;
                }
            }
            for (UnderivedChunk chunk : archive.listUnderived(projectId, day)) {
                if (file(chunk.key(), archive.sentryMetadata(chunk.key()), minutes)) {
                    indexed++;
                } else {
                    withoutTimes++;
                }
            }
        }
        Map<RollupTier, Integer> built = new EnumMap<>(RollupTier.class);
        RollupCascade.Due due = new RollupCascade.Due();
        cascade.buildMinutes(projectId, minutes, due, tier -> built.merge(tier, 1, Integer::sum));
        cascade.buildDue(projectId, due, tier -> built.merge(tier, 1, Integer::sum));
        return new Summary(projectId, from, to, indexed, withoutTimes, built.getOrDefault(RollupTier.MINUTE, 0),
                built.getOrDefault(RollupTier.TEN_MINUTES, 0), built.getOrDefault(RollupTier.HOUR, 0),
                built.getOrDefault(RollupTier.DAY, 0));
    }

    /** Files one chunk in the index; false when its metadata has no sample times (chunks of old relays). */
    private boolean file(ArchiveKey key, Map<String, String> metadata, Set<Long> minutes) {
        String first = metadata.get(ChunkMetadata.FIRST_SAMPLE_NS);
        String last = metadata.get(ChunkMetadata.LAST_SAMPLE_NS);
        if (first == null || last == null) {
            return false;
        }
        long firstNanos;
        long lastNanos;
        try {
            firstNanos = Long.parseLong(first);
            lastNanos = Long.parseLong(last);
        } catch (NumberFormatException e) {
            return false;
        }
        index.recordForRebuild(key, firstNanos, lastNanos);
        for (long minute = TimeBuckets.minuteOf(firstNanos); minute <= lastNanos; minute += TimeBuckets.MINUTE_NANOS) {
            minutes.add(minute);
        }
        return true;
    }
}
