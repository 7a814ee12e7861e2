package chunkrelay.storage;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Rollups in the bucket: {@code rollups/{project}/{yyyy-mm-dd}/{tier}{HHmm|HH|}.{chunks}}, e.g.
 * {@code rollups/1/2026-11-26/m1003.120}, {@code .../t1000.1200} (ten minutes), {@code .../h10.7200},
 * {@code .../d.172800}. The number is how many chunk
 * entries the rollup holds: a rollup only ever gains chunks (late ones), so of several versions of one bucket the
 * largest is the newest, and a slow builder's older version written after a newer one is never read. Versions are
 * written once ({@code If-None-Match: *}) with the archive's compression; the same inputs give the same bytes, so two
 * replicas building one are harmless. Beside them, each replica's partial rollups of the minutes not settled yet
 * ({@link OpenPart}). Per project and day, for retention. Thread-safe.
 */
public final class RollupObjects {
    private final ObjectStore store;

    public RollupObjects(ObjectStore store) {
        this.store = store;
    }

    /** One stored rollup version: its tier, bucket start (Unix nanoseconds) and chunk count. */
    public record Version(String projectId, RollupTier tier, long bucketNanos, long chunks) {
        String key() {
            return folder(projectId, bucketNanos) + tier.letter() + TimeBuckets.name(tier, bucketNanos) + "." + chunks;
        }
    }

    /**
     * The newest version of each bucket of a tier in a project's day whose name starts with {@code within} (an
     * hour's {@code HH} for minutes, empty for all), by bucket start; one listing.
     */
    public Map<Long, Version> newest(String projectId, LocalDate day, RollupTier tier, String within) {
        Map<Long, Version> newest = new TreeMap<>();
        for (Version version : versions(projectId, day, tier, within)) {
            newest.merge(version.bucketNanos(), version, (a, b) -> a.chunks() >= b.chunks() ? a : b);
        }
        return newest;
    }

    /** Every stored version of a tier in a project's day (see {@link #newest}). */
    public List<Version> versions(String projectId, LocalDate day, RollupTier tier, String within) {
        ArchiveKey.checkPart("project id", projectId);
        String folder = ArchiveLayout.ROLLUPS + projectId + "/" + day + "/";
        List<Version> versions = new ArrayList<>();
        for (String key : store.listObjects(folder + tier.letter() + within)) {
            String name = key.substring(folder.length() + 1);
            int dot = name.lastIndexOf('.');
            if (dot < 0) {
                continue;
            }
            try {
                long bucket = TimeBuckets.parse(tier, day, name.substring(0, dot));
                versions.add(new Version(projectId, tier, bucket, Long.parseLong(name.substring(dot + 1))));
            } catch (RuntimeException notOurs) {
                // an object someone else put there
            }
        }
        return versions;
    }

    /** A version's bytes as written, decompressed; empty when it is gone (replaced and removed meanwhile). */
    public Optional<byte[]> read(Version version) {
        return store.readObject(version.key()).map(stored -> store.settings().compression().decompress(stored));
    }

    /** Writes a version once; false when it existed (another builder wrote the same). */
    public boolean write(Version version, byte[] rollup) {
        return store.storeObjectIfAbsent(version.key(), store.settings().compression().compress(rollup));
    }

    /** Removes a version replaced by a newer one. */
    public void remove(Version version) {
        store.deleteObject(version.key());
    }

    /**
     * Where one replica shares its partial rollup of a minute not settled yet:
     * {@code rollups/{project}/{yyyy-mm-dd}/o{HHmm}.{replica}.{sequence}}, rewritten under a growing sequence as the
     * replica merges more chunks (the older one removed after), so that a reader can keep what it decoded by key.
     */
    public record OpenPart(String projectId, long minuteNanos, String replica, long sequence) {
        public OpenPart {
            ArchiveKey.checkPart("project id", projectId);
            if (!replica.matches("[a-z0-9]{1,32}")) {
                throw new IllegalArgumentException("a replica id is lowercase letters and digits: " + replica);
            }
        }

        String key() {
            return openPrefix(projectId, minuteNanos) + replica + "." + sequence;
        }
    }

    /** The newest shared part of each replica for one minute, by replica; one listing. */
    public Map<String, OpenPart> openParts(String projectId, long minuteNanos) {
        String prefix = openPrefix(projectId, minuteNanos);
        Map<String, OpenPart> newest = new TreeMap<>();
        for (String key : store.listObjects(prefix)) {
            String[] name = key.substring(prefix.length()).split("\\.");
            try {
                OpenPart part = new OpenPart(projectId, minuteNanos, name[0], Long.parseLong(name[1]));
                newest.merge(part.replica(), part, (a, b) -> a.sequence() >= b.sequence() ? a : b);
            } catch (RuntimeException notOurs) {
                // an object someone else put there
            }
        }
        return newest;
    }

    /** A shared part's bytes, decompressed; empty when it is gone (replaced and removed meanwhile). */
    public Optional<byte[]> read(OpenPart part) {
        return store.readObject(part.key()).map(stored -> store.settings().compression().decompress(stored));
    }

    public void write(OpenPart part, byte[] bytes) {
        store.storeObject(part.key(), store.settings().compression().compress(bytes));
    }

    public void remove(OpenPart part) {
        store.deleteObject(part.key());
    }

    private static String openPrefix(String projectId, long minuteNanos) {
        return folder(projectId, minuteNanos) + "o" + TimeBuckets.name(RollupTier.MINUTE, minuteNanos) + ".";
    }

    static String folder(String projectId, long bucketNanos) {
        return ArchiveLayout.ROLLUPS + projectId + "/" + TimeBuckets.dayOf(bucketNanos) + "/";
    }
}
