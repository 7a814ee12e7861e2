package chunkrelay.envelope.rollups;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.Rollup;
import com.google.protobuf.InvalidProtocolBufferException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The minutes whose rollup is not built yet (the newest two or three of a live fleet), merged on this relay as its
 * chunks' OTLP forms are derived: one partial rollup per project and open minute, with the names of the chunks it
 * holds and of those this relay holds in their link window. Each replica shares its partials through the bucket
 * every few seconds ({@link SharedOpenMinutes}) and reads the others'. A range that reaches now is then answered from
 * these and the settled rollups, reading whole only the chunks no partial names (derived since a replica last shared,
 * by a replica killed since), whatever the fleet's rate. A relay's partials outlive it: it shares them once more at
 * its stop, after deriving what waited, and the relay that follows it reads them as another replica's, so a restart
 * reads whole nothing its predecessor derived.
 *
 * <p>A chunk counts in its minutes' partials from the moment it is acknowledged ({@link #received}), from its form
 * translated at receipt, and its links join once it is derived. That holds for a minute that has settled too, up to
 * {@value TimeBuckets#RECEIPT_LOOKBACK_MINUTES} minutes back (a fleet just pointed at the relay sends its last minutes at once),
 * and such a partial then also takes the chunk's derived form.
 *
 * <p>Exact as the rollups are: a chunk is in a partial or read whole, never both, and a query uses a minute's
 * partial only while the minute has no rollup. A chunk derived after its minute settled, not received into a partial,
 * is left to the builder (and the late queue). A partial stays {@value TimeBuckets#KEEP_AFTER_SETTLED_SECONDS} s after
 * its minute settles (and while it holds chunks not derived yet, up to the lookback more), time for the builder to
 * write the minute's rollup, then is dropped, with the parts other replicas left of the minute once its rollup
 * exists. Memory: at most {@link RollupConfig#openMaxBytesLimit()} for all partials (estimated from their tables);
 * past it chunks are left out of partials and read whole. Thread-safe:
 * derivations add, queries read, each open minute behind its own lock.
 */
@Singleton
public class OpenMinutes {
    private static final long MINUTE = TimeBuckets.MINUTE_NANOS;
    /** When an action on a chunk's minutes makes a minute's partial that does not exist yet. */
    private enum Create {
        /** A chunk acknowledged now: for an open minute, or a settled one within the lookback. */
        AT_RECEIPT,
        /** For an open minute only. */
        WHILE_OPEN,
        NEVER
    }

    private final ChunkArchive archive;
    private final TimeBuckets buckets;
    private final long maxBytes;
    private final Map<OpenMinute.Key, OpenMinute> minutes = new ConcurrentHashMap<>();
    private final SharedOpenMinutes shared;
    private final Counter leftOutAtReceipt;
    private final Counter leftOutDerived;
    private final Counter otlpReads;
    /** Minutes dropped whose shared part is still to be removed by the next share round. */
    private final Queue<OpenMinute.Key> forgotten = new ConcurrentLinkedQueue<>();
    /** The first share round has looked for the parts earlier relays left in the bucket. */
    private boolean lookedForLeftParts;

    public OpenMinutes(ChunkArchive archive, TimeBuckets buckets, RollupObjects rollups, RollupConfig config,
                       MeterRegistry meters) {
        this.archive = archive;
        this.buckets = buckets;
        this.maxBytes = config.openMaxBytesLimit();
        this.shared = new SharedOpenMinutes(rollups);
        RelayMeter.ROLLUPS_OPEN_MINUTES.gauge(meters, minutes, Map::size);
        RelayMeter.ROLLUPS_OPEN_BYTES.gauge(meters, this, o -> o.heapBytes() + o.shared.decodedBytes());
        this.leftOutAtReceipt = RelayMeter.ROLLUPS_OPEN_LEFT_OUT.counter(meters, "receipt");
        this.leftOutDerived = RelayMeter.ROLLUPS_OPEN_LEFT_OUT.counter(meters, "derived");
        this.otlpReads = RelayMeter.OTLP_READS.counter(meters, "open_minute");
    }

    /**
     * What a query reads of one open minute: the partial rollups of the replicas (this one's, merged up to now, and
     * the others' as last shared), no chunk in two of them, and the chunks they name: held, or waiting for their
     * window.
     */
    public record Snapshot(List<Rollup> rollups, Set<String> covered) {
        /** Whether the chunk of an index entry is in the partial, or waiting in this relay for its window. */
        public boolean covers(ChunkTimeIndex.Entry entry) {
            return covered.contains(entry.name());
        }
    }

    /**
     * A chunk of this relay starts waiting for its link window. With its form translated at receipt it counts in its
     * open minutes at once (its links once it is derived), while the partials are within their memory budget; without
     * one, queries skip it in its open minutes until it is derived.
     *
     * @param unlinked the chunk's OTLP form without links, or null when it waits without one
     * @param metadata the archived forms' metadata (platform, release, environment), or null
     */
    public void received(ArchiveKey key, long firstSampleNanos, long lastSampleNanos,
                         ExportProfilesServiceRequest unlinked, Map<String, String> metadata) {
        // a chunk counted from receipt grows its partials by about its serialised size: it must fit the budget
        if (unlinked == null || heapBytes() + unlinked.getSerializedSize() > maxBytes) {
            if (unlinked != null) {
                leftOutAtReceipt.increment();
            }
            forEachOpen(key, firstSampleNanos, lastSampleNanos, Create.AT_RECEIPT,
                    (minute, name) -> minute.waiting(name));
            return;
        }
        forEachOpen(key, firstSampleNanos, lastSampleNanos, Create.AT_RECEIPT,
                (minute, name) -> minute.received(name, unlinked, metadata.get(ChunkMetadata.PLATFORM),
                        metadata.get(ChunkMetadata.RELEASE), metadata.get(ChunkMetadata.ENVIRONMENT)));
    }

    /**
     * A chunk's OTLP form was written by this relay: merged into its open minutes, unless the partials are over their
     * memory budget.
     *
     * @param metadata       the derived form's metadata (first and last sample, platform, release, environment)
     * @param form           the form as the derivation made it, or null when it has only {@code compressedOtlp}
     * @param compressedOtlp the {@code ExportProfilesServiceRequest} bytes as the archive stores them, when the chunk
     *                       waited and was stored as those (parsed here, counted), else null
     * @param asReceived     whether the form is the one given at {@link #received} unchanged (no span to link): a
     *                       partial that merged it then need not merge it again
     */
    public void derived(ArchiveKey key, Map<String, String> metadata, ExportProfilesServiceRequest form,
                        byte[] compressedOtlp, boolean asReceived) {
        if (!metadata.containsKey(ChunkMetadata.FIRST_SAMPLE_NS)) {
            return; // no sample, no minute
        }
        long first = Long.parseLong(metadata.get(ChunkMetadata.FIRST_SAMPLE_NS));
        long last = Long.parseLong(metadata.get(ChunkMetadata.LAST_SAMPLE_NS));
        boolean withinBudget = heapBytes() < maxBytes;
        boolean[] leftOut = {false};
        forEachOpen(key, first, last, withinBudget ? Create.WHILE_OPEN : Create.NEVER, (minute, name) -> {
            if (withinBudget) {
                minute.derived(new OpenMinute.DerivedForm(name, form, compressedOtlp, asReceived,
                        metadata.get(ChunkMetadata.PLATFORM), metadata.get(ChunkMetadata.RELEASE),
                        metadata.get(ChunkMetadata.ENVIRONMENT)));
                minute.compact();
            } else {
                // left out of the partial: no longer named as waiting, so a query reads it whole
                minute.released(name);
                leftOut[0] = true;
            }
        });
        if (leftOut[0]) {
            leftOutDerived.increment();
        }
    }

    /** A chunk stops waiting without this relay deriving it (another replica did, or it failed). */
    public void released(ArchiveKey key, long firstSampleNanos, long lastSampleNanos) {
        forEachOpen(key, firstSampleNanos, lastSampleNanos, Create.NEVER, (minute, name) -> {
            minute.released(name);
            minute.compact();
        });
    }

    /**
     * The partials of one open minute of a project: this relay's, merged up to now, and the other replicas' as they
     * last shared them (one listing, and a read of each part not read before); empty when no replica has one. A part
     * holding a chunk another part holds too (a chunk derived twice) is left out, and its chunks read whole.
     */
    public Optional<Snapshot> snapshot(String project, long minute) {
        evictSettled();
        List<Rollup> rollups = new ArrayList<>();
        Set<String> included = new HashSet<>();
        Set<String> covered = new HashSet<>();
        OpenMinute open = minutes.get(new OpenMinute.Key(project, minute));
        if (open != null) {
            add(open.fold().partial(), rollups, included, covered);
        }
        // the budget only when another replica's part is to be decoded: summing it takes every open minute's lock,
        // which a range of an hour of minutes with no partial (a fleet's first hour) would take for each of them
        List<OpenMinute.Partial> others = shared.others(new OpenMinute.Key(project, minute),
                () -> Math.max(0, maxBytes - heapBytes() - shared.decodedBytes()));
        others.forEach(part -> add(part, rollups, included, covered));
        return open == null && others.isEmpty() ? Optional.empty() : Optional.of(new Snapshot(rollups, covered));
    }

    private static void add(OpenMinute.Partial part, List<Rollup> rollups, Set<String> included,
                            Set<String> covered) {
        if (part.included().stream().noneMatch(included::contains)) {
            rollups.addAll(part.rollups());
            included.addAll(part.included());
            covered.addAll(part.included());
        }
        covered.addAll(part.waiting());
    }

    /**
     * Whether this relay's partial of a minute still counts chunks from receipt that are not derived yet, and has not
     * expired while counting: until they are derived it answers for the minute, whose rollup waits for them.
     */
    public boolean countsUnderived(String project, long minute) {
        OpenMinute open = minutes.get(new OpenMinute.Key(project, minute));
        return open != null && open.counting() && !buckets.expiredWhileCounting(minute);
    }

    /** Whether {@link #countsUnderived} holds for a minute of a project in {@code [fromNanos, toNanos)}. */
    public boolean countsUnderivedIn(String project, long fromNanos, long toNanos) {
        return minutes.keySet().stream().anyMatch(at -> at.project().equals(project) && at.minute() >= fromNanos
                && at.minute() < toNanos && countsUnderived(project, at.minute()));
    }

    /**
     * The rollups of the chunks of an open minute this relay derived, merged as they came: what its rollup builder
     * takes instead of reading those chunks back. None once the minute is dropped.
     */
    public List<Rollup> derivedRollups(String project, long minute) {
        OpenMinute open = minutes.get(new OpenMinute.Key(project, minute));
        return open == null ? List.of() : open.derivedRollups();
    }

    /**
     * Shares this relay's partial of every open minute that changed since it last did, and removes those of the
     * minutes dropped since, with the parts other replicas left of them once they are rolled up: every few seconds,
     * in the server, and once more at its stop. The first round looks for the parts left in the bucket (today's and
     * yesterday's) by relays before this one, so that it removes them in turn.
     */
    public synchronized void share() {
        if (!lookedForLeftParts) {
            shared.lookForLeftParts(archive.listProjects(),
                    Set.of(buckets.today(), buckets.today().minusDays(1)));
            lookedForLeftParts = true;
        }
        for (OpenMinute.Key seen : shared.othersSeen()) {
            if (!minutes.containsKey(seen) && buckets.expired(seen.minute())) {
                forgotten.add(seen);
            }
        }
        evictSettled();
        for (OpenMinute.Key gone = forgotten.poll(); gone != null; gone = forgotten.poll()) {
            shared.forget(gone);
        }
        for (Map.Entry<OpenMinute.Key, OpenMinute> open : minutes.entrySet()) {
            shared.share(open.getKey(), open.getValue().fold());
        }
    }

    /**
     * What the partials hold on the heap, estimated, summed over the minutes each time: a running total kept from each
     * change's difference drifts when changes race (and went negative under a fleet's load).
     */
    private long heapBytes() {
        long bytes = 0;
        for (OpenMinute minute : minutes.values()) {
            bytes += minute.heapBytes();
        }
        return bytes;
    }

    private interface MinuteAction {
        void apply(OpenMinute minute, String name);
    }

    /**
     * Applies an action to each partial of a minute a chunk's samples reach, making a minute's partial where
     * {@code create} says.
     */
    private void forEachOpen(ArchiveKey key, long first, long last, Create create, MinuteAction action) {
        evictSettled();
        long end = Math.max(first, last);
        for (long minute = TimeBuckets.minuteOf(first); minute <= end; minute += MINUTE) {
            if (buckets.aheadOfClock(minute)) {
                continue;
            }
            OpenMinute.Key at = new OpenMinute.Key(key.projectId(), minute);
            OpenMinute open = minutes.get(at);
            if (open == null) {
                boolean make = switch (create) {
                    case AT_RECEIPT -> buckets.countsFromReceipt(minute);
                    case WHILE_OPEN -> buckets.open(minute);
                    case NEVER -> false;
                };
                if (!make) {
                    continue;
                }
                long start = minute;
                open = minutes.computeIfAbsent(at, k -> new OpenMinute(start, this::requestOf));
            }
            action.apply(open, new ChunkTimeIndex.Entry(key, first, end, minute).name());
        }
    }

    /**
     * Drops the partials whose minute settled long enough ago for the builder to have written its rollup, once they
     * hold no chunk still to be derived (or the lookback has passed too).
     */
    private void evictSettled() {
        minutes.entrySet().removeIf(entry -> {
            long minute = entry.getKey().minute();
            boolean old = buckets.expired(minute) && (!entry.getValue().counting()
                    || buckets.expiredWhileCounting(minute));
            if (old) {
                forgotten.add(entry.getKey());
            }
            return old;
        });
    }

    /** The derived form's object; parsed (and counted) when the derivation had only compressed bytes. */
    private ExportProfilesServiceRequest requestOf(OpenMinute.DerivedForm derived) {
        if (derived.form() != null) {
            return derived.form();
        }
        otlpReads.increment();
        try {
            return ExportProfilesServiceRequest.parseFrom(archive.decompress(derived.compressedOtlp()));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the relay's own OTLP form does not parse", e);
        }
    }
}
