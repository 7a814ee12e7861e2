package chunkrelay.envelope.rollups;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import com.google.protobuf.InvalidProtocolBufferException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import jakarta.inject.Singleton;

import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How one rollup is built: a minute's from the derived chunks its index lists, ten minutes' from their minutes'
 * newest rollups, an hour's from its ten-minute rollups (and the minutes of those not built), a day's from its hours'.
 * Deterministic (the same inputs give the same bytes: a merge's result is in canonical order, so an hour from its ten
 * minutes equals one from its minutes) and idempotent (a version is written once), so any number of replicas may build
 * the same rollup.
 */
@Singleton
public class RollupBuilds {
    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupObjects rollups;
    private final Counter fromOpenMinute;
    private final Counter fromArchive;

    public RollupBuilds(ChunkArchive archive, ChunkTimeIndex index, RollupObjects rollups, MeterRegistry meters) {
        this.archive = archive;
        this.index = index;
        this.rollups = rollups;
        this.fromOpenMinute = RelayMeter.ROLLUPS_MINUTE_CHUNKS.counter(meters, "open_minute");
        this.fromArchive = RelayMeter.ROLLUPS_MINUTE_CHUNKS.counter(meters, "archive");
    }

    /**
     * Builds a minute's rollup, and its per-second detail, from every chunk its index lists whose OTLP form is derived;
     * a chunk not derived yet goes to the late queue, so that the rollup is built again once it is. Empty when no
     * chunk of the minute is derived.
     */
    public Optional<RollupObjects.Version> buildMinute(String projectId, long minute) {
        return buildMinute(projectId, minute, List.of());
    }

    /**
     * Builds a minute's rollup as {@link #buildMinute(String, long)} does, taking the chunks of {@code held} (per-second
     * rollups of some of its derived chunks, as its open minute merged them) from those rather than from the archive:
     * a part is taken whole when the index lists every chunk it holds, and only the chunks no part holds are read.
     * Sums of counts are associative, so the rollup is the one its chunks give.
     */
    public Optional<RollupObjects.Version> buildMinute(String projectId, long minute, List<Rollup> held) {
        ProfileMerger detail = detailMerger(minute);
        List<ChunkTimeIndex.Entry> entries = index.overlapping(projectId, minute);
        Set<String> listed = new HashSet<>();
        entries.forEach(entry -> listed.add(entry.name()));
        SortedSet<String> included = new TreeSet<>();
        for (Rollup part : held) {
            if (listed.containsAll(part.included()) && part.included().stream().noneMatch(included::contains)) {
                detail.add(part);
                included.addAll(part.included());
                fromOpenMinute.increment(part.included().size());
            }
        }
        for (ChunkTimeIndex.Entry entry : entries) {
            if (included.contains(entry.name())) {
                continue;
            }
            Optional<ChunkArchive.DerivedForm> form = archive.readDerived(entry.key());
            if (form.isEmpty()) {
                index.markLate(entry);
                continue;
            }
            add(detail, form.get(), entry);
            included.add(entry.name());
            fromArchive.increment();
        }
        if (included.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(write(projectId, minute, detail, included));
    }

    /**
     * A minute's rollup with its late chunks added: the newest rollup merged with the derived forms of the late
     * entries it does not hold, so that chunks arriving late one by one into a full minute cost one read each, not a
     * rebuild of the minute; through the minute's newest per-second detail when that holds what the rollup holds,
     * which then gets them too. Empty when none of them is derived yet.
     */
    public Optional<RollupObjects.Version> absorb(String projectId, long minute, Rollup newest,
                                                  List<ChunkTimeIndex.Entry> late) {
        Optional<Rollup> detail = newestDetail(projectId, minute)
                .filter(d -> d.included().equals(newest.included()));
        long end = minute + RollupTier.MINUTE.bucketNanos();
        ProfileMerger merger = detail.isPresent() ? detailMerger(minute)
                : Rollup.merger(minute, end, RollupTier.MINUTE.ticks());
        merger.add(detail.orElse(newest));
        SortedSet<String> included = new TreeSet<>(newest.included());
        for (ChunkTimeIndex.Entry entry : late) {
            if (included.contains(entry.name())) {
                continue;
            }
            Optional<ChunkArchive.DerivedForm> form = archive.readDerived(entry.key());
            if (form.isPresent()) {
                add(merger, form.get(), entry);
                included.add(entry.name());
                fromArchive.increment();
            }
        }
        if (included.size() == newest.included().size()) {
            return Optional.empty();
        }
        if (detail.isPresent()) {
            return Optional.of(write(projectId, minute, merger, included));
        }
        // a minute built before details were, or whose detail is past its retention: the rollup alone
        RollupObjects.Version version = new RollupObjects.Version(projectId, RollupTier.MINUTE, minute,
                included.size());
        rollups.write(version, RollupCodec.write(new Rollup(minute, end, merger.result(), included, new TreeMap<>())));
        return Optional.of(version);
    }

    /**
     * Writes a minute's per-second detail, then its rollup (the detail taken whole) under the same version: a query
     * that finds the rollup finds the detail of its chunks.
     */
    private RollupObjects.Version write(String projectId, long minute, ProfileMerger detailMerger,
                                        SortedSet<String> included) {
        long end = minute + RollupTier.MINUTE.bucketNanos();
        Rollup detail = new Rollup(minute, end, detailMerger.result(), included, new TreeMap<>());
        rollups.write(new RollupObjects.Detail(projectId, minute, included.size()), RollupCodec.write(detail));
        ProfileMerger merger = Rollup.merger(minute, end, RollupTier.MINUTE.ticks());
        merger.add(detail);
        RollupObjects.Version version = new RollupObjects.Version(projectId, RollupTier.MINUTE, minute,
                included.size());
        rollups.write(version, RollupCodec.write(new Rollup(minute, end, merger.result(), included, new TreeMap<>())));
        return version;
    }

    private static ProfileMerger detailMerger(long minute) {
        return Rollup.detailMerger(minute, minute + RollupTier.MINUTE.bucketNanos(), RollupTier.MINUTE.ticks());
    }

    private static void add(ProfileMerger merger, ChunkArchive.DerivedForm form, ChunkTimeIndex.Entry entry) {
        Map<String, String> metadata = form.metadata();
        merger.add(parse(form.otlp(), entry), metadata.get(ChunkMetadata.PLATFORM),
                metadata.get(ChunkMetadata.RELEASE), metadata.get(ChunkMetadata.ENVIRONMENT));
    }

    /**
     * Builds the rollup of ten minutes, an hour or a day from the newest rollups of its parts ({@link #parts}); empty
     * when it has none, or when one was replaced while it was read (the next round builds it).
     */
    public Optional<RollupObjects.Version> buildFromParts(String projectId, RollupTier tier, long bucket) {
        long end = bucket + tier.bucketNanos();
        Map<Long, RollupObjects.Version> parts = parts(projectId, tier, bucket);
        if (parts.isEmpty()) {
            return Optional.empty();
        }
        ProfileMerger merger = Rollup.merger(bucket, end, tier.ticks());
        SortedMap<Long, Long> minuteVersions = new TreeMap<>();
        long chunks = 0;
        for (RollupObjects.Version part : parts.values()) {
            Optional<Rollup> rollup = read(part);
            if (rollup.isEmpty()) {
                return Optional.empty();
            }
            merger.add(rollup.get());
            if (part.tier() == RollupTier.MINUTE) {
                minuteVersions.put(part.bucketNanos(), part.chunks());
            } else {
                minuteVersions.putAll(rollup.get().minuteVersions());
            }
            chunks += part.chunks();
        }
        RollupObjects.Version version = new RollupObjects.Version(projectId, tier, bucket, chunks);
        rollups.write(version, RollupCodec.write(new Rollup(bucket, end, merger.result(), new TreeSet<>(),
                minuteVersions)));
        // an hour's or day's older versions are only ever read as the newest: a query that listed one just before
        // reads its parts instead; minutes' versions stay, since these name them in minuteVersions
        for (RollupObjects.Version older : rollups.versions(projectId, TimeBuckets.dayOf(bucket), tier,
                TimeBuckets.name(tier, bucket))) {
            if (older.bucketNanos() == bucket && older.chunks() < chunks) {
                rollups.remove(older);
            }
        }
        return Optional.of(version);
    }

    /**
     * The newest rollups of the parts of ten minutes (their minutes), an hour (its ten-minute rollups, and the minutes
     * of those not built: an hour of an archive older than the ten-minute tier) or a day (its hours), by start.
     */
    public Map<Long, RollupObjects.Version> parts(String projectId, RollupTier tier, long bucket) {
        Map<Long, RollupObjects.Version> parts = newestWithin(projectId, tier.finer(), tier, bucket);
        if (tier == RollupTier.HOUR) {
            for (Map.Entry<Long, RollupObjects.Version> minute
                    : newestWithin(projectId, RollupTier.MINUTE, tier, bucket).entrySet()) {
                if (!parts.containsKey(TimeBuckets.bucketOf(RollupTier.TEN_MINUTES, minute.getKey()))) {
                    parts.put(minute.getKey(), minute.getValue());
                }
            }
        }
        return parts;
    }

    /** The newest rollups of a tier within one bucket of a coarser one, by start; one listing. */
    private Map<Long, RollupObjects.Version> newestWithin(String projectId, RollupTier tier, RollupTier within,
                                                          long bucket) {
        // the names of a bucket's parts share its own name's prefix: HH for an hour, HHm for ten minutes
        String prefix = switch (within) {
            case DAY -> "";
            case HOUR -> TimeBuckets.name(RollupTier.HOUR, bucket);
            default -> TimeBuckets.name(within, bucket).substring(0, 3);
        };
        Map<Long, RollupObjects.Version> parts = new TreeMap<>();
        long end = bucket + within.bucketNanos();
        for (Map.Entry<Long, RollupObjects.Version> part
                : rollups.newest(projectId, TimeBuckets.dayOf(bucket), tier, prefix).entrySet()) {
            if (part.getKey() >= bucket && part.getKey() < end) {
                parts.put(part.getKey(), part.getValue());
            }
        }
        return parts;
    }

    /** The minutes of a project's day that have a rollup, in one listing. */
    public java.util.Set<Long> minutesBuilt(String projectId, LocalDate day) {
        return rollups.newest(projectId, day, RollupTier.MINUTE, "").keySet();
    }

    /** The newest version of one bucket's rollup, if any. */
    public Optional<RollupObjects.Version> newest(String projectId, RollupTier tier, long bucket) {
        return Optional.ofNullable(rollups.newest(projectId, TimeBuckets.dayOf(bucket), tier,
                TimeBuckets.name(tier, bucket)).get(bucket));
    }

    /** The newest version of each bucket of a tier in a project's day whose name starts with {@code within}. */
    public Map<Long, RollupObjects.Version> newestOf(String projectId, LocalDate day, RollupTier tier, String within) {
        return rollups.newest(projectId, day, tier, within);
    }

    /** The newest per-second detail of a minute; empty when it has none (built before details were, or expired). */
    public Optional<Rollup> newestDetail(String projectId, long minute) {
        RollupObjects.Detail detail = rollups.newestDetails(projectId, TimeBuckets.dayOf(minute),
                TimeBuckets.name(RollupTier.MINUTE, minute)).get(minute);
        return detail == null ? Optional.empty() : read(detail);
    }

    /** The newest per-second detail of each minute of a project's day whose name starts with {@code within}. */
    public Map<Long, RollupObjects.Detail> newestDetailsOf(String projectId, LocalDate day, String within) {
        return rollups.newestDetails(projectId, day, within);
    }

    /** A stored detail; empty when that version is gone. */
    public Optional<Rollup> read(RollupObjects.Detail detail) {
        return rollups.read(detail).map(RollupCodec::read);
    }

    /** A stored rollup; empty when that version is gone. */
    public Optional<Rollup> read(RollupObjects.Version version) {
        return rollups.read(version).map(RollupCodec::read);
    }

    private static ExportProfilesServiceRequest parse(byte[] otlp, ChunkTimeIndex.Entry entry) {
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("archived OTLP form of " + entry.key().stem() + " does not decode", e);
        }
    }
}
