package chunkrelay.envelope.views;

import chunkrelay.envelope.rollups.RollupBuilds;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.TimeGrid;
import chunkrelay.translate.view.ViewFilter;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import jakarta.inject.Singleton;

import java.time.LocalDate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Answers a range from the bucket: whole days, hours and minutes from their rollups where they are built and their
 * ticks fit the timeline's steps, the rest (the range's ragged edges, minutes not settled yet, and every sample of a
 * trace or span filter) from the derived chunks the index lists for those minutes; a late chunk that a rollup read
 * does not hold is added from its chunk. Sums of counts are associative, so the answer is the one the chunks give.
 * Raw chunk reads are bounded by {@code relay.views.max-chunks}; memory holds the merged answer, not the chunks.
 */
@Singleton
public class RangeReader {
    private static final long MINUTE = ChunkTimeIndex.MINUTE_NANOS;

    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupBuilds rollups;
    private final ViewsConfig config;

    public RangeReader(ChunkArchive archive, ChunkTimeIndex index, RollupBuilds rollups, ViewsConfig config) {
        this.archive = archive;
        this.index = index;
        this.rollups = rollups;
        this.config = config;
    }

    /** What one merge read: rollups, chunks read whole, and the answer. */
    public record Answer(MergedProfile profile, int rollupsRead, int chunksRead) {
    }

    /**
     * The samples of a project that pass the filter, merged, counted on {@code grid} when it is not null.
     *
     * @throws chunkrelay.envelope.errors.RelayError 400 when more than {@code relay.views.max-chunks} chunks would
     *                                               be read whole
     */
    public Answer merge(long project, ViewFilter filter, TimeGrid grid) {
        return new Reads(Long.toString(project), filter, grid).run();
    }

    /** The reads of one merge, with what it listed on the way. */
    private final class Reads {
        private final String project;
        private final ViewFilter filter;
        private final TimeGrid grid;
        private final ProfileMerger merger;
        private final Map<String, Map<Long, RollupObjects.Version>> listed = new HashMap<>();
        private final Map<Long, Set<String>> minuteIncluded = new HashMap<>();
        private List<ChunkTimeIndex.Entry> late = List.of();
        private int rollupsRead;
        private int chunksRead;

        Reads(String project, ViewFilter filter, TimeGrid grid) {
            this.project = project;
            this.filter = filter;
            this.grid = grid;
            this.merger = new ProfileMerger(filter, grid, false);
        }

        Answer run() {
            long from = filter.fromNanos();
            long to = filter.toNanos();
            long firstWhole = Math.floorDiv(from + MINUTE - 1, MINUTE) * MINUTE;
            long lastWhole = ChunkTimeIndex.minuteOf(to);
            if (filter.byLink() || firstWhole >= lastWhole) {
                raw(from, to);
            } else {
                // the late queue first: a late chunk absent from it now is in every rollup listed after
                late = index.late(project);
                raw(from, firstWhole);
                wholeMinutes(firstWhole, lastWhole);
                raw(lastWhole, to);
            }
            return new Answer(merger.result(), rollupsRead, chunksRead);
        }

        /** {@code [from, to)}, on minute bounds: the coarsest rollups that are built and fit, chunks elsewhere. */
        private void wholeMinutes(long from, long to) {
            long rawFrom = -1;
            long t = from;
            while (t < to) {
                long next = covered(RollupTier.DAY, t, to);
                if (next < 0) {
                    next = covered(RollupTier.HOUR, t, to);
                }
                if (next < 0) {
                    next = covered(RollupTier.MINUTE, t, to);
                }
                if (next < 0) {
                    rawFrom = rawFrom < 0 ? t : rawFrom;
                    t += MINUTE;
                    continue;
                }
                if (rawFrom >= 0) {
                    raw(rawFrom, t);
                    rawFrom = -1;
                }
                t = next;
            }
            if (rawFrom >= 0) {
                raw(rawFrom, to);
            }
        }

        /** Adds the rollup of the bucket of {@code tier} starting at {@code t}; its end, or -1 when it cannot. */
        private long covered(RollupTier tier, long t, long to) {
            long end = t + tier.bucketNanos();
            if (tier.bucketOf(t) != t || end > to || !fits(tier)) {
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
            merger.add(rollup.get());
            rollupsRead++;
            addLateNotIn(rollup.get(), tier);
            return end;
        }

        /** Whether a tier's ticks nest in the timeline's steps. */
        private boolean fits(RollupTier tier) {
            return grid == null || (grid.stepNanos() % tier.tickNanos() == 0
                    && Math.floorMod(grid.originNanos(), tier.tickNanos()) == 0);
        }

        /** The newest version of a bucket's rollup, from one listing per day (days, hours) or hour (minutes). */
        private RollupObjects.Version newest(RollupTier tier, long bucket) {
            LocalDate day = RollupBuilds.dayOf(bucket);
            String within = tier == RollupTier.MINUTE ? RollupObjects.bucketName(RollupTier.HOUR, bucket) : "";
            String key = tier + "/" + day + "/" + within;
            return listed.computeIfAbsent(key, k -> rollups.newestOf(project, day, tier, within)).get(bucket);
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
                    chunk(entry.key(), minute, minute + MINUTE);
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
        private void raw(long from, long to) {
            if (from >= to) {
                return;
            }
            Map<ArchiveKey, ChunkTimeIndex.Entry> chunks = new LinkedHashMap<>();
            for (long minute = ChunkTimeIndex.minuteOf(from); minute < to; minute += MINUTE) {
                for (ChunkTimeIndex.Entry entry : index.minute(project, minute)) {
                    if (entry.overlaps(from, to) && profilerPasses(entry.key())) {
                        chunks.putIfAbsent(entry.key(), entry);
                    }
                }
            }
            for (ArchiveKey key : chunks.keySet()) {
                chunk(key, from, to);
            }
        }

        /** Adds one derived chunk's samples of {@code [from, to)}; nothing while it is not derived. */
        private void chunk(ArchiveKey key, long from, long to) {
            if (++chunksRead > config.maxChunks()) {
                throw ViewQuery.bad("the range needs more than " + config.maxChunks()
                        + " chunks read whole (relay.views.max-chunks): those at its edges, in minutes not rolled up"
                        + " yet, or all of them for a trace or span filter; narrow from/to or filter by profiler_id");
            }
            Optional<ChunkArchive.DerivedForm> form = archive.readDerived(key);
            if (form.isEmpty()) {
                return;
            }
            ExportProfilesServiceRequest request;
            try {
                request = ExportProfilesServiceRequest.parseFrom(form.get().otlp());
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException("archived OTLP form of " + key.stem() + " does not decode", e);
            }
            Map<String, String> metadata = form.get().metadata();
            merger.add(request, metadata.get(ChunkMetadata.PLATFORM), metadata.get(ChunkMetadata.RELEASE),
                    metadata.get(ChunkMetadata.ENVIRONMENT), from, to);
        }

        private boolean profilerPasses(ArchiveKey key) {
            return filter.profilerId() == null || filter.profilerId().equals(key.profilerId());
        }
    }
}
