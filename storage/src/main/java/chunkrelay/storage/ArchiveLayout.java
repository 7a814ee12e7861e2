package chunkrelay.storage;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Every folder of the bucket, named once. A chunk's own objects have no prefix: {@code {project}/{yyyy-mm-dd}/...}
 * ({@link ArchiveKey}); everything else the relay keeps lies under one of these.
 */
public final class ArchiveLayout {
    /** The time index: one entry per chunk under the minute of its first sample ({@link ChunkTimeIndex}). */
    public static final String INDEX = "index/";
    /** Chunks indexed into a minute that may already be rolled up ({@link ChunkTimeIndex}). */
    public static final String LATE = "late/";
    /** Minute, hour and day rollups ({@link RollupObjects}). */
    public static final String ROLLUPS = "rollups/";
    /** Each replica's ingest health counts per SDK, by project and hour of receipt ({@link HealthObjects}). */
    public static final String HEALTH = "health/";
    /** Payloads the relay failed on, kept to be processed again after a fix ({@link ChunkArchive}). */
    public static final String QUARANTINE = "quarantine/";
    /** The span log: spans seen, by project, profiler and minute, for links across replicas. */
    public static final String SPANS = "spans/";
    /** Heartbeats of relays that may hold chunks waiting for their link window. */
    public static final String DERIVERS = "derivers/";
    /** Heartbeats of relays whose forwarding may leave chunks undelivered if they die. */
    public static final String FORWARDERS = "forwarders/";
    /** Envelopes for the upstream Sentry that wait in the bucket. */
    public static final String UPSTREAM_SPOOL = "upstream-spool/";
    /** Claims on spooled envelopes, so that one replica sends each. */
    public static final String UPSTREAM_SPOOL_CLAIMS = "upstream-spool-claims/";
    /** The lease of the retention sweep, held by one replica at a time. */
    public static final String RETENTION_LEASE = "retention/sweep-";
    /** The folders of no project, whose objects expire by when they were written. */
    public static final List<String> RELAY_FOLDERS = List.of(UPSTREAM_SPOOL, UPSTREAM_SPOOL_CLAIMS);

    /**
     * The folders that hold a project's objects by day, {@code {folder}{project}/{yyyy-mm-dd}/...}, in the order a
     * due day is deleted: what the views derive from the chunks (their index, rollups and late arrivals), the health
     * counts, quarantined payloads, then the chunks themselves ({@code ""}).
     */
    public static final List<String> PROJECT_DAY_FOLDERS = List.of(INDEX, ROLLUPS, LATE, HEALTH, QUARANTINE, "");

    private ArchiveLayout() {
    }

    /**
     * Checks a replica's name in the keys of what each replica shares (its parts of open minutes, its health counts):
     * lowercase letters and digits, so that it parses back from a key split at dots.
     */
    static void checkReplica(String replica) {
        if (!replica.matches("[a-z0-9]{1,32}")) {
            throw new IllegalArgumentException("a replica id is lowercase letters and digits: " + replica);
        }
    }

    /** The {@code yyyy-mm-dd} folders one level below {@code prefix}, oldest first; other folders are not ours. */
    public static List<LocalDate> dayFolders(ObjectStore store, String prefix) {
        List<LocalDate> days = new ArrayList<>();
        for (String folder : store.listFolders(prefix)) {
            try {
                days.add(LocalDate.parse(folder));
            } catch (DateTimeParseException notADay) {
                // left alone
            }
        }
        return days;
    }
}
