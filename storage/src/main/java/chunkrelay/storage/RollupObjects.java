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
 * replicas building one are harmless. Beside a minute's rollup, its per-second detail ({@link Detail}), and each
 * replica's partial rollups of the minutes not settled yet ({@link OpenPart}). Per project and day, for retention.
 * Thread-safe.
 */
public final class RollupObjects {
    /** The letter of a minute's per-second detail, beside the tiers' letters. */
    private static final String DETAIL = "s";

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
        return newestByBucket(versions(projectId, day, tier, within));
    }

    private static Map<Long, Version> newestByBucket(List<Version> versions) {
        Map<Long, Version> newest = new TreeMap<>();
        for (Version version : versions) {
            newest.merge(version.bucketNanos(), version, (a, b) -> a.chunks() >= b.chunks() ? a : b);
        }
        return newest;
    }

    /** Every stored version of a tier in a project's day (see {@link #newest}). */
    public List<Version> versions(String projectId, LocalDate day, RollupTier tier, String within) {
        return list(projectId, day, tier.letter(), tier, within);
    }

    /** The objects named {@code {letter}{bucket name}.{chunks}} of a tier's buckets in a project's day. */
    private List<Version> list(String projectId, LocalDate day, String letter, RollupTier tier, String within) {
        ArchiveKey.checkPart("project id", projectId);
        String folder = ArchiveLayout.ROLLUPS + projectId + "/" + day + "/";
        List<Version> versions = new ArrayList<>();
        for (String key : store.listObjects(folder + letter + within)) {
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

    /**
     * A minute's per-second detail, {@code rollups/{project}/{yyyy-mm-dd}/s{HHmm}.{chunks}}: the samples of the same
     * chunks as the minute's rollup of that version, kept apart per second, read only for a minute at a range's edge.
     * Written before the minute's rollup of the same version, so that a minute's rollup never holds a chunk its newest
     * detail lacks.
     */
    public record Detail(String projectId, long minuteNanos, long chunks) {
        String key() {
            return folder(projectId, minuteNanos) + DETAIL + TimeBuckets.name(RollupTier.MINUTE, minuteNanos) + "."
                    + chunks;
        }
    }

    /** Whether an object's name within its day folder is a minute's detail. */
    static boolean isDetail(String name) {
        return name.startsWith(DETAIL);
    }

    /** The newest detail of each minute of a project's day whose name starts with {@code within} ({@code HH}). */
    public Map<Long, Detail> newestDetails(String projectId, LocalDate day, String within) {
        Map<Long, Detail> newest = new TreeMap<>();
        newestByBucket(list(projectId, day, DETAIL, RollupTier.MINUTE, within)).forEach((minute, version) ->
                newest.put(minute, new Detail(projectId, minute, version.chunks())));
        return newest;
    }

    public Optional<byte[]> read(Detail detail) {
        return store.readObject(detail.key()).map(stored -> store.settings().compression().decompress(stored));
    }

    /** Writes a detail once; false when it existed. */
    public boolean write(Detail detail, byte[] rollup) {
        return store.storeObjectIfAbsent(detail.key(), store.settings().compression().compress(rollup));
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
            ArchiveLayout.checkReplica(replica);
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

    /**
     * Every shared part (each replica's every sequence) of a project's day whose minute's name starts with
     * {@code within} (a minute's {@code HHmm} for one minute, empty for the whole day); one listing.
     */
    public List<OpenPart> openParts(String projectId, LocalDate day, String within) {
        ArchiveKey.checkPart("project id", projectId);
        String folder = ArchiveLayout.ROLLUPS + projectId + "/" + day + "/o";
        List<OpenPart> parts = new ArrayList<>();
        for (String key : store.listObjects(folder + within)) {
            String[] name = key.substring(folder.length()).split("\\.");
            try {
                parts.add(new OpenPart(projectId, TimeBuckets.parse(RollupTier.MINUTE, day, name[0]), name[1],
                        Long.parseLong(name[2])));
            } catch (RuntimeException notOurs) {
                // an object someone else put there
            }
        }
        return parts;
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
