package chunkrelay.storage;

import software.amazon.awssdk.services.s3.model.S3Object;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Deletes what the bucket keeps past its retention, and measures what it keeps. One pass ({@link #sweep}) over the
 * per-project, per-day folders ({@link ArchiveLayout#PROJECT_DAY_FOLDERS}), the span log and the relay's own folders:
 *
 * <ul>
 *   <li>a project's day is due once its last instant is older than the project's retention; of a due day, every
 *   object group (a chunk's stem: both forms, metadata, markers, leases) whose every object was written longer ago
 *   than the retention is deleted, so a chunk uploaded late for an old day waits out its retention from its upload;
 *   </li>
 *   <li>a minute's per-second detail ({@link RollupObjects.Detail}) goes once its day is older than the shorter of the
 *   project's retention and {@code detailUse}: ranges cut inside older minutes are then read from their chunks;</li>
 *   <li>the span log's days go once older than the shorter of the project's retention and {@code spanLogUse};</li>
 *   <li>objects of the relay-wide folders ({@link ArchiveLayout#RELAY_FOLDERS}) go once written longer ago than the
 *   relay-wide retention.</li>
 * </ul>
 *
 * <p>Order, so that a pass cut off anywhere leaves nothing a listing misreads: a day's derived folders before its
 * chunks, and within a chunk its OTLP form first and its Sentry form last ({@link ChunkArchive#list} shows a chunk by
 * its OTLP form, so a half-deleted chunk is not listed; it is whole again or gone after the next pass). Days and
 * projects that are not dates or numbers are left alone. A retention of zero keeps forever.
 *
 * <p>The size of a kept day before yesterday is listed once a day ({@link #RELIST_SETTLED}) and remembered in
 * between (such days take few new objects: late uploads), so that an hourly pass does not list the whole archive
 * every time; a day past its retention is listed at every pass. Not thread-safe: one pass at a time.
 */
public final class RetentionSweep {
    private static final String NUMBER = "[0-9]{1,20}";
    /** How long the size of a kept day before yesterday is taken as listed. */
    static final Duration RELIST_SETTLED = Duration.ofDays(1);

    /**
     * What is kept how long.
     *
     * @param projectRetention a project's retention by its id; zero keeps forever
     * @param relayRetention   the retention of objects of no project (the relay-wide folders); zero keeps forever
     * @param spanLogUse       how long the span log ({@link ArchiveLayout#SPANS}) is of use (linking chunks derived
     *                         late); shorter retentions win
     * @param detailUse        how long the minutes' per-second details are kept (zero: as long as their day); shorter
     *                         retentions win
     */
    public record Rules(Function<String, Duration> projectRetention, Duration relayRetention, Duration spanLogUse,
                        Duration detailUse) {
    }

    /** Told of each deleted object; {@code project} is null for relay-wide objects. */
    public interface Deletions {
        void deleted(String project, long bytes);
    }

    /** What a project keeps in the per-day folders. */
    public record Size(long objects, long bytes) {
        Size plus(Size other) {
            return new Size(objects + other.objects, bytes + other.bytes);
        }
    }

    private final ObjectStore store;
    private final Rules rules;
    private final Clock clock;
    private final Deletions deletions;
    /** Sizes of kept days before yesterday, by {@code {folder}{project}/{day}/}, as listed at a time. */
    private final Map<String, Listed> settledDays = new HashMap<>();

    private record Listed(Size size, Instant at) {
    }

    public RetentionSweep(ObjectStore store, Rules rules, Clock clock, Deletions deletions) {
        this.store = store;
        this.rules = rules;
        this.clock = clock;
        this.deletions = deletions;
    }

    /**
     * One pass; returns what each project keeps afterwards in its per-day folders.
     *
     * @throws ArchiveUnavailableException when the bucket cannot be listed or written; what was deleted stays deleted
     */
    public Map<String, Size> sweep() {
        Instant now = clock.instant();
        LocalDate yesterday = TimeBuckets.dayOf(now).minusDays(1);
        Map<String, Size> sizes = new TreeMap<>();
        Map<String, Listed> stillSettled = new HashMap<>();
        for (Map.Entry<String, TreeSet<LocalDate>> project : projectDays().entrySet()) {
            Duration retention = rules.projectRetention().apply(project.getKey());
            for (LocalDate day : project.getValue()) {
                boolean due = isDue(day, retention, now);
                boolean detailsDue = isDue(day, rules.detailUse(), now);
                for (String folder : ArchiveLayout.PROJECT_DAY_FOLDERS) {
                    String dayFolder = folder + project.getKey() + "/" + day + "/";
                    Listed listed = settledDays.get(dayFolder);
                    if (due || listed == null || !listed.at().plus(RELIST_SETTLED).isAfter(now)) {
                        listed = new Listed(sweepDay(project.getKey(), dayFolder, due ? retention : Duration.ZERO,
                                detailsDue && folder.equals(ArchiveLayout.ROLLUPS), now), now);
                    }
                    if (day.isBefore(yesterday)) {
                        stillSettled.put(dayFolder, listed);
                    }
                    sizes.merge(project.getKey(), listed.size(), Size::plus);
                }
            }
        }
        settledDays.keySet().retainAll(stillSettled.keySet());
        settledDays.putAll(stillSettled);
        sweepSpanLog(now);
        sweepRelayFolders(now);
        return sizes;
    }

    /** Every project with every day it has in any per-day folder. */
    private Map<String, TreeSet<LocalDate>> projectDays() {
        Map<String, TreeSet<LocalDate>> days = new TreeMap<>();
        for (String folder : ArchiveLayout.PROJECT_DAY_FOLDERS) {
            for (String project : store.listFolders(folder)) {
                if (project.matches(NUMBER)) {
                    days.computeIfAbsent(project, p -> new TreeSet<>())
                            .addAll(ArchiveLayout.dayFolders(store, folder + project + "/"));
                }
            }
        }
        return days;
    }

    /**
     * Deletes the groups of a day folder whose every object is older than {@code retention} (none for zero), and the
     * minutes' details when {@code details} says so, and returns the size of the rest.
     */
    private Size sweepDay(String project, String dayFolder, Duration retention, boolean details, Instant now) {
        Map<String, List<S3Object>> groups = new LinkedHashMap<>();
        for (S3Object object : store.list(dayFolder)) {
            groups.computeIfAbsent(group(object.key()), g -> new ArrayList<>()).add(object);
        }
        Size kept = new Size(0, 0);
        for (List<S3Object> group : groups.values()) {
            boolean old = !retention.isZero()
                    && group.stream().allMatch(o -> !o.lastModified().plus(retention).isAfter(now))
                    || details && RollupObjects.isDetail(name(group.get(0).key()));
            if (old) {
                group.sort(Comparator.comparingInt(RetentionSweep::deletionRank));
                group.forEach(object -> delete(project, object));
            } else {
                kept = kept.plus(new Size(group.size(), group.stream().mapToLong(S3Object::size).sum()));
            }
        }
        return kept;
    }

    /** The span log's days past their use: {@code spans/{project}/{profiler}/{day}/...}. */
    private void sweepSpanLog(Instant now) {
        for (String project : store.listFolders(ArchiveLayout.SPANS)) {
            if (!project.matches(NUMBER)) {
                continue;
            }
            Duration retention = rules.projectRetention().apply(project);
            Duration use = retention.isZero() || retention.compareTo(rules.spanLogUse()) > 0
                    ? rules.spanLogUse() : retention;
            String projectFolder = ArchiveLayout.SPANS + project + "/";
            for (String profiler : store.listFolders(projectFolder)) {
                for (LocalDate day : ArchiveLayout.dayFolders(store, projectFolder + profiler + "/")) {
                    if (isDue(day, use, now)) {
                        store.list(projectFolder + profiler + "/" + day + "/").stream()
                                .filter(o -> !o.lastModified().plus(use).isAfter(now))
                                .forEach(o -> delete(project, o));
                    }
                }
            }
        }
    }

    private void sweepRelayFolders(Instant now) {
        if (rules.relayRetention().isZero()) {
            return;
        }
        for (String folder : ArchiveLayout.RELAY_FOLDERS) {
            store.list(folder).stream()
                    .filter(o -> !o.lastModified().plus(rules.relayRetention()).isAfter(now))
                    .forEach(o -> delete(null, o));
        }
    }

    private void delete(String project, S3Object object) {
        store.deleteObject(store.keyOf(object.key()));
        deletions.deleted(project, object.size());
    }

    private static String name(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }

    /** Whether a day's last instant is older than {@code retention}; never for zero. */
    private static boolean isDue(LocalDate day, Duration retention, Instant now) {
        return !retention.isZero()
                && !TimeBuckets.endOf(day).plus(retention).isAfter(now);
    }

    /** The objects deleted together: a chunk's stem (its last segment up to the first dot), else the object alone. */
    private static String group(String key) {
        int dot = key.indexOf('.', key.lastIndexOf('/') + 1);
        return dot < 0 ? key : key.substring(0, dot);
    }

    /** OTLP form first, Sentry form last: a chunk is listed by its OTLP form and derived again from its Sentry form. */
    private static int deletionRank(S3Object object) {
        String name = object.key().substring(object.key().lastIndexOf('/') + 1);
        if (name.contains(ChunkArchive.OTLP_SUFFIX + ".")) {
            return 0;
        }
        return name.contains(ChunkArchive.SENTRY_SUFFIX + ".") ? 2 : 1;
    }
}
