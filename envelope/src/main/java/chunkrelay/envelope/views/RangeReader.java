package chunkrelay.envelope.views;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.rollups.OpenMinutes;
import chunkrelay.envelope.rollups.RollupBuilds;
import chunkrelay.envelope.rollups.RollupConfig;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.ChunkAttributes;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.TimeGrid;
import chunkrelay.translate.view.ViewFilter;
import jakarta.inject.Singleton;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Answers a range from the bucket: whole days, hours and minutes from their rollups where they are built and their
 * ticks fit the timeline's steps, minutes not settled yet from the replicas' partial rollups of them
 * ({@link OpenMinutes}), the part of a minute at the range's edge (a range cut on any second) from the minute's
 * per-second detail or the partial of it (split per second too), and only the rest (every sample of a trace or span
 * filter, edges inside a second or of a minute without a detail) from the derived chunks the index lists; a late
 * chunk that a rollup read does not hold, and a chunk of an open minute its partial does not hold, is added from its
 * chunk. A minute at an edge is taken from its rollup or partial whole when every sample that holds lies in the range
 * (a range that ends now). Sums of counts are associative, so the answer is the one the chunks give.
 *
 * <p>Chunks read whole are bounded by {@code relay.views.max-chunks}, counted apart by whose doing they are: reads
 * the question asks for ({@link Asked}) past it answer 400, saying what to narrow; reads the relay's own state causes
 * (minutes whose rollups are still being built after a backfill, a restart or a reindex, late chunks not yet taken
 * in) past it answer 503 with {@code Retry-After}, the builder's interval. Memory holds the merged answer, not the
 * chunks.
 */
@Singleton
public class RangeReader {
    private static final long MINUTE = TimeBuckets.MINUTE_NANOS;
    private static final long SECOND = TimeBuckets.SECOND_NANOS;

    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupBuilds rollups;
    private final OpenMinutes openMinutes;
    private final RollupConfig rollupConfig;
    private final ViewsConfig config;
    private final WholeChunkReads chunkReads;

    public RangeReader(ChunkArchive archive, ChunkTimeIndex index, RollupBuilds rollups, OpenMinutes openMinutes,
                       RollupConfig rollupConfig, ViewsConfig config, WholeChunkReads chunkReads) {
        this.archive = archive;
        this.index = index;
        this.rollups = rollups;
        this.openMinutes = openMinutes;
        this.rollupConfig = rollupConfig;
        this.config = config;
        this.chunkReads = chunkReads;
    }

    /** What one merge read: rollups, chunks read whole, and the answer. */
    public record Answer(MergedProfile profile, int rollupsRead, int chunksRead) {
    }

    /**
     * The samples of a project that pass the filter, merged, counted on {@code grid} when it is not null.
     *
     * @throws RelayError 400 when the question needs more than {@code relay.views.max-chunks} chunks read whole; 503
     *                    with {@code Retry-After} when the rollups of the range are still being built and the chunks
     *                    in their stead are more than that
     */
    public Answer merge(long project, ViewFilter filter, TimeGrid grid) {
        return new Reads(ProjectIds.format(project), filter, grid).run();
    }

    /**
     * Why a chunk is read whole: the question asks for it (each way with what the user can do about it), or the relay
     * has not rolled its minute up yet ({@code WAITING}).
     */
    private enum Cause {
        TRACE_FILTER("a trace or span filter reads every chunk of its range whole (links are per sample): give the"
                + " trace's own time as from/to, or filter by profiler_id"),
        FINE_STEPS("timeline steps finer than a second are counted from the chunks: ask for steps of a second or"
                + " more, or a shorter range"),
        PART_OF_SECOND("a range that starts or ends inside a second is cut from the chunks there: start and end it"
                + " on whole seconds"),
        NO_DETAIL("a minute at the range's edge has no per-second detail (rolled up before details were kept, or"
                + " past relay.rollups.detail-retention), so its part in the range is cut from the chunks: start and"
                + " end the range on whole minutes there"),
        ROLLUPS_OFF("this relay builds no rollups (relay.rollups.enabled: false), so the range is read from its"
                + " chunks: narrow from/to or filter by profiler_id"),
        WAITING(null);

        private final String remedy;

        Cause(String remedy) {
            this.remedy = remedy;
        }
    }

    /** The reads of one merge, with what it listed on the way. */
    private final class Reads {
        private final String project;
        private final ViewFilter filter;
        private final TimeGrid grid;
        private final ProfileMerger merger;
        private final boolean byChunkAttributes;
        private final Map<String, Map<Long, RollupObjects.Version>> listed = new HashMap<>();
        private final Map<String, Map<Long, RollupObjects.Detail>> listedDetails = new HashMap<>();
        private final Map<Long, Set<String>> minuteIncluded = new HashMap<>();
        private List<ChunkTimeIndex.Entry> late = List.of();
        private final List<WholeChunkReads.WholeChunk> wholeChunks = new ArrayList<>();
        private int rollupsRead;
        private int chunksRead;
        /** Chunks read whole because the question asks for them. */
        private int askedReads;

        Reads(String project, ViewFilter filter, TimeGrid grid) {
            this.project = project;
            this.filter = filter;
            this.grid = grid;
            this.merger = new ProfileMerger(filter, grid, false);
            this.byChunkAttributes = filter.platform() != null || filter.release() != null
                    || filter.environment() != null;
        }

        Answer run() {
            Answer answer = plan();
            chunkReads.merge(wholeChunks, merger);
            return new Answer(merger.result(), answer.rollupsRead(), answer.chunksRead());
        }

        private Answer plan() {
            long from = filter.fromNanos();
            long to = filter.toNanos();
            long firstWhole = TimeBuckets.firstBucketFrom(RollupTier.MINUTE, from);
            long lastWhole = TimeBuckets.minuteOf(to);
            if (filter.byLink()) {
                raw(from, to, Cause.TRACE_FILTER);
                return new Answer(null, rollupsRead, chunksRead);
            }
            // the late queue first: a late chunk absent from it now is in every rollup listed after
            late = index.late(project);
            if (firstWhole > lastWhole) {
                edge(from, to);
            } else {
                edge(from, firstWhole);
                wholeMinutes(firstWhole, lastWhole);
                edge(lastWhole, to);
            }
            return new Answer(null, rollupsRead, chunksRead);
        }

        /**
         * {@code [from, to)} within one minute: from the minute's rollup, or its partials while it is open, when every
         * sample that holds lies in the part; else, for a part cut on whole seconds, from the minute's per-second
         * detail or its partials (split per second too); else from the chunks.
         */
        private void edge(long from, long to) {
            if (from >= to) {
                return;
            }
            if (!fits(RollupTier.MINUTE)) {
                raw(from, to, Cause.FINE_STEPS);
                return;
            }
            long minute = TimeBuckets.minuteOf(from);
            RollupObjects.Version version = newest(RollupTier.MINUTE, minute);
            Optional<Rollup> rollup = version == null ? Optional.empty() : rollups.read(version);
            if (rollup.isPresent() && merger.accepts(rollup.get())) {
                add(rollup.get(), RollupTier.MINUTE);
                return;
            }
            boolean onSeconds = Math.floorMod(from, SECOND) == 0 && Math.floorMod(to, SECOND) == 0;
            Optional<Rollup> detail = onSeconds ? newestDetail(minute) : Optional.empty();
            // a detail holding fewer chunks than the rollup would miss late chunks the queue no longer names
            if (detail.isPresent() && merger.accepts(detail.get(), from, to) && (rollup.isEmpty()
                    || detail.get().included().containsAll(rollup.get().included()))) {
                merger.add(detail.get(), from, to);
                rollupsRead++;
                addLateNotIn(detail.get(), RollupTier.MINUTE);
                return;
            }
            if (rollup.isEmpty() && detail.isEmpty() && open(minute, from, to)) {
                return;
            }
            if (!onSeconds) {
                raw(from, to, Cause.PART_OF_SECOND);
            } else if (rollup.isPresent()) {
                raw(from, to, Cause.NO_DETAIL);
            } else {
                raw(from, to, Cause.WAITING);
            }
        }

        private void add(Rollup rollup, RollupTier tier) {
            merger.add(rollup);
            rollupsRead++;
            addLateNotIn(rollup, tier);
        }

        /**
         * Adds {@code [from, to)} of an open minute from the replicas' partials of it (whole, or the part's seconds),
         * and the chunks they do not name from their chunks; false when there is no partial, or one can give neither
         * (it holds samples outside the part, and the part is not cut on seconds or the partial is not split so).
         */
        private boolean open(long minute, long from, long to) {
            Optional<OpenMinutes.Snapshot> open = openMinutes.snapshot(project, minute);
            if (open.isEmpty() || !open.get().rollups().stream()
                    .allMatch(partial -> merger.accepts(partial) || merger.accepts(partial, from, to))) {
                return false;
            }
            for (Rollup partial : open.get().rollups()) {
                if (merger.accepts(partial)) {
                    merger.add(partial);
                } else {
                    merger.add(partial, from, to);
                }
                rollupsRead++;
            }
            for (ChunkTimeIndex.Entry entry : index.overlapping(project, minute)) {
                if (!open.get().covers(entry) && entry.overlaps(from, to) && profilerPasses(entry.key())) {
                    chunk(entry.key(), from, to, Cause.WAITING);
                }
            }
            return true;
        }

        /**
         * {@code [from, to)}, on minute bounds: the coarsest rollups that are built and fit, partials of open minutes,
         * chunks elsewhere. Each tier's buckets are made of the next finer tier's, so a range whose minutes are all
         * built reads at most 9 minutes, 5 ten minutes and 23 hours at each end, and its whole days.
         */
        private void wholeMinutes(long from, long to) {
            long rawFrom = -1;
            long t = from;
            while (t < to) {
                long next = -1;
                for (RollupTier tier = RollupTier.DAY; next < 0 && tier != null; tier = tier.finer()) {
                    next = covered(tier, t, to);
                }
                if (next < 0 && fits(RollupTier.MINUTE) && open(t, t, t + MINUTE)) {
                    next = t + MINUTE;
                }
                if (next < 0) {
                    rawFrom = rawFrom < 0 ? t : rawFrom;
                    t += MINUTE;
                    continue;
                }
                if (rawFrom >= 0) {
                    unrolled(rawFrom, t);
                    rawFrom = -1;
                }
                t = next;
            }
            if (rawFrom >= 0) {
                unrolled(rawFrom, to);
            }
        }

        /**
         * Whole minutes no rollup or partial covers: the builder has not reached them yet, unless the timeline's
         * steps are finer than a minute rollup's ticks, which the question chose.
         */
        private void unrolled(long from, long to) {
            raw(from, to, fits(RollupTier.MINUTE) ? Cause.WAITING : Cause.FINE_STEPS);
        }

        /** Adds the rollup of the bucket of {@code tier} starting at {@code t}; its end, or -1 when it cannot. */
        private long covered(RollupTier tier, long t, long to) {
            long end = t + tier.bucketNanos();
            if (TimeBuckets.bucketOf(tier, t) != t || end > to || !fits(tier)) {
                return -1;
            }
            RollupObjects.Version version = newest(tier, t);
            if (version == null) {
                return -1;
            }
            Optional<Rollup> rollup = rollups.read(version);
            if (rollup.isEmpty() || !merger.accepts(rollup.get())) {
                return -1;
            }
            add(rollup.get(), tier);
            return end;
        }

        /** Whether a tier's ticks nest in the timeline's steps. */
        private boolean fits(RollupTier tier) {
            return grid == null || (grid.stepNanos() % tier.tickNanos() == 0
                    && Math.floorMod(grid.originNanos(), tier.tickNanos()) == 0);
        }

        /** The newest version of a bucket's rollup, from one listing per day (days, hours) or hour (minutes). */
        private RollupObjects.Version newest(RollupTier tier, long bucket) {
            LocalDate day = TimeBuckets.dayOf(bucket);
            String within = tier == RollupTier.MINUTE ? TimeBuckets.name(RollupTier.HOUR, bucket) : "";
            String key = tier + "/" + day + "/" + within;
            return listed.computeIfAbsent(key, k -> rollups.newestOf(project, day, tier, within)).get(bucket);
        }

        /** The newest per-second detail of a minute, from one listing per hour. */
        private Optional<Rollup> newestDetail(long minute) {
            String key = "detail/" + TimeBuckets.dayOf(minute) + "/" + TimeBuckets.name(RollupTier.HOUR, minute);
            RollupObjects.Detail detail = listedDetails.computeIfAbsent(key, k -> rollups.newestDetailsOf(project,
                    TimeBuckets.dayOf(minute), TimeBuckets.name(RollupTier.HOUR, minute))).get(minute);
            return detail == null ? Optional.empty() : rollups.read(detail);
        }

        /** Adds, from their chunks, the late chunks of a rollup's minutes that the rollup does not hold. */
        private void addLateNotIn(Rollup rollup, RollupTier tier) {
            for (ChunkTimeIndex.Entry entry : late) {
                long minute = entry.minuteNanos();
                if (minute < rollup.startNanos() || minute >= rollup.endNanos() || !profilerPasses(entry.key())) {
                    continue;
                }
                Set<String> included = tier == RollupTier.MINUTE ? rollup.included()
                        : includedIn(minute, rollup.minuteVersions().get(minute));
                if (!included.contains(entry.name())) {
                    chunk(entry.key(), Math.max(minute, filter.fromNanos()), Math.min(minute + MINUTE,
                            filter.toNanos()), Cause.WAITING);
                }
            }
        }

        /** The chunks a given version of a minute's rollup holds; none when there was no such version. */
        private Set<String> includedIn(long minute, Long version) {
            if (version == null) {
                return Set.of();
            }
            return minuteIncluded.computeIfAbsent(minute, m -> rollups.read(new RollupObjects.Version(project,
                    RollupTier.MINUTE, m, version)).<Set<String>>map(Rollup::included).orElse(Set.of()));
        }

        /** Adds the samples of {@code [from, to)} from the chunks the index lists for it. */
        private void raw(long from, long to, Cause cause) {
            if (from >= to) {
                return;
            }
            List<ArchiveKey> chunks = new ArrayList<>();
            index.overlappingRange(project, from, to, entry -> {
                if (profilerPasses(entry.key())) {
                    chunks.add(entry.key());
                }
                return true;
            });
            for (ArchiveKey key : chunks) {
                chunk(key, from, to, cause);
            }
        }

        /**
         * Queues one chunk's samples of {@code [from, to)} to be read whole, within the cap; with a platform, release
         * or environment filter, only when its metadata (one HEAD) passes it, so that the cap counts what is merged.
         */
        private void chunk(ArchiveKey key, long from, long to, Cause cause) {
            if (byChunkAttributes && !archive.derivedMetadata(key).map(this::attributesPass).orElse(false)) {
                return;
            }
            chunksRead++;
            // a relay that builds no rollups will not catch up: its unrolled minutes are as asked
            Cause why = cause == Cause.WAITING && !rollupConfig.enabled() ? Cause.ROLLUPS_OFF : cause;
            if (why != Cause.WAITING && ++askedReads > config.maxChunks()) {
                throw ViewQuery.bad("the range needs more than " + config.maxChunks()
                        + " chunks read whole (relay.views.max-chunks): " + why.remedy);
            }
            if (chunksRead > config.maxChunks()) {
                // the builder's next round, at most a minute: by then a minute has settled or a round has built more
                long seconds = Math.max(1, Math.min(60, rollupConfig.interval().toSeconds()));
                throw RelayError.unavailable("the rollups of this range are not built yet"
                        + " (the builder is catching up after a backfill, a restart or a reindex): answering now would"
                        + " read more than " + config.maxChunks() + " chunks whole (relay.views.max-chunks); retry in "
                        + seconds + " s", List.of(), seconds);
            }
            wholeChunks.add(new WholeChunkReads.WholeChunk(key, from, to));
        }

        private boolean attributesPass(Map<String, String> metadata) {
            return new ChunkAttributes(filter.profilerId(), metadata.get(ChunkMetadata.PLATFORM),
                    metadata.get(ChunkMetadata.RELEASE), metadata.get(ChunkMetadata.ENVIRONMENT)).passes(filter);
        }

        private boolean profilerPasses(ArchiveKey key) {
            return filter.profilerId() == null || filter.profilerId().equals(key.profilerId());
        }
    }
}
