package chunkrelay.storage;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Where a chunk lives in the archive: the stem {@code {project}/{yyyy-mm-dd}/{profiler}/{chunk}} shared by
 * both of its objects (the configured prefix goes in front).
 *
 * @param projectId  the Sentry project id
 * @param day        the UTC day of the chunk's first sample
 * @param profilerId the profiler session id
 * @param chunkId    the chunk id
 */
public record ArchiveKey(String projectId, LocalDate day, String profilerId, String chunkId) {

    private static final int MAX_PART_LENGTH = 128;

    public ArchiveKey {
        checkPart("project id", projectId);
        Objects.requireNonNull(day, "day");
        checkPart("profiler id", profilerId);
        checkPart("chunk id", chunkId);
    }

    /** The key of a chunk whose first sample was taken at {@code firstSample}; the day is taken in UTC. */
    public static ArchiveKey of(String projectId, Instant firstSample, String profilerId, String chunkId) {
        return new ArchiveKey(projectId, TimeBuckets.dayOf(firstSample), profilerId, chunkId);
    }

    /** The stem without prefix, e.g. {@code 42/2026-11-22/7c2a.../b31f...}. */
    public String stem() {
        return projectId + "/" + day + "/" + profilerId + "/" + chunkId;
    }

    /**
     * The key whose {@link #stem()} is {@code stem}: the way back from a stem handed around as a string (e.g. as
     * the key of a forwarding request).
     *
     * @throws IllegalArgumentException when {@code stem} is not of the form {@code project/yyyy-mm-dd/profiler/chunk}
     */
    public static ArchiveKey ofStem(String stem) {
        String[] parts = stem.split("/", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an archive stem (project/day/profiler/chunk): '" + stem + "'");
        }
        LocalDate day;
        try {
            day = LocalDate.parse(parts[1]);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not an archive stem, bad day '" + parts[1] + "': '" + stem + "'");
        }
        return new ArchiveKey(parts[0], day, parts[2], parts[3]);
    }

    // Parts become path segments (and, with the filesystem backend, directories): refuse anything that could
    // escape its segment or collide with another key.
    static void checkPart(String what, String part) {
        Objects.requireNonNull(part, what);
        if (part.isEmpty() || part.length() > MAX_PART_LENGTH || part.equals(".") || part.equals("..")) {
            throw new IllegalArgumentException("invalid " + what + " for an archive key: '" + part + "'");
        }
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.';
            if (!allowed) {
                throw new IllegalArgumentException("invalid " + what + " for an archive key: '" + part + "'");
            }
        }
    }
}
