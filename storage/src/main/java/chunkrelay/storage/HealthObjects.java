package chunkrelay.storage;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The ingest health counts in the bucket: each replica's counts of one project and hour of receipt,
 * {@code health/{project}/{yyyy-mm-dd}/{HH}.{replica}.{sequence}}, e.g. {@code health/1/2026-11-26/10.3f9a0c1b2d4e.7},
 * rewritten under a growing sequence as the replica counts more (the older one removed after), so that of one
 * replica's parts of an hour the largest sequence is the newest. A reader sums the newest part of every replica: each
 * replica counts only what it received, so nothing is counted twice. One object an hour, not a minute, so that a
 * week's answer reads 168 objects per replica rather than 10 080; the content (per minute within the hour) is the
 * writer's. Per project and day, for retention ({@link ArchiveLayout#PROJECT_DAY_FOLDERS}). Thread-safe.
 */
public final class HealthObjects {
    private final ObjectStore store;

    public HealthObjects(ObjectStore store) {
        this.store = store;
    }

    /** One replica's counts of a project's hour, as of its {@code sequence}-th write. */
    public record Part(String projectId, long hourNanos, String replica, long sequence) {
        public Part {
            ArchiveKey.checkPart("project id", projectId);
            ArchiveLayout.checkReplica(replica);
            if (TimeBuckets.bucketOf(RollupTier.HOUR, hourNanos) != hourNanos) {
                throw new IllegalArgumentException("not the start of an hour: " + hourNanos);
            }
        }

        String key() {
            return folder(projectId, TimeBuckets.dayOf(hourNanos)) + TimeBuckets.name(RollupTier.HOUR, hourNanos)
                    + "." + replica + "." + sequence;
        }
    }

    /** The projects with health counts in the bucket, as their folder names; one listing. */
    public List<String> projects() {
        return store.listFolders(ArchiveLayout.HEALTH);
    }

    /** The newest part of every replica for every hour of a project's day, in hour order; one listing. */
    public List<Part> newestParts(String projectId, LocalDate day) {
        String folder = folder(projectId, day);
        Map<String, Part> newest = new TreeMap<>();
        for (String key : store.listObjects(folder)) {
            String[] name = key.substring(folder.length()).split("\\.");
            try {
                Part part = new Part(projectId, TimeBuckets.parse(RollupTier.HOUR, day, name[0]), name[1],
                        Long.parseLong(name[2]));
                newest.merge(name[0] + "." + name[1], part, (a, b) -> a.sequence() >= b.sequence() ? a : b);
            } catch (RuntimeException notOurs) {
                // an object someone else put there
            }
        }
        return new ArrayList<>(newest.values());
    }

    /** A part's bytes, decompressed; empty when it is gone (replaced and removed meanwhile). */
    public Optional<byte[]> read(Part part) {
        return store.readObject(part.key()).map(stored -> store.settings().compression().decompress(stored));
    }

    public void write(Part part, byte[] bytes) {
        store.storeObject(part.key(), store.settings().compression().compress(bytes));
    }

    public void remove(Part part) {
        store.deleteObject(part.key());
    }

    private static String folder(String projectId, LocalDate day) {
        ArchiveKey.checkPart("project id", projectId);
        return ArchiveLayout.HEALTH + projectId + "/" + day + "/";
    }
}
