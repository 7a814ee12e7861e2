package chunkrelay.envelope.health;

import chunkrelay.chunk.SampleCounts;
import chunkrelay.chunk.SampleDropRule;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.envelope.derivation.ChunkReceipt;
import chunkrelay.envelope.derivation.LinkedSampleCounts;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.links.SessionNames;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.HealthObjects;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This replica's ingest health counts, by project and hour of receipt ({@link HourCounts}), counted as the chunk
 * path decides each chunk and shared through the bucket ({@link HealthObjects}): every {@code share-interval}, at
 * stop and before each health answer of this replica, the hours that changed are written under a new sequence and
 * the older part removed. An hour is held until it ended {@link #HELD_AFTER_HOUR} ago and is
 * written; a chunk of an hour no longer held (a worker slower than that) continues the replica's part read back from
 * the bucket. The samples linked are counted when each chunk is derived ({@link LinkedSampleCounts}), under the
 * SDK and minute its receipt recorded. The profiler ids transactions name come from the span intake
 * ({@link SessionNames}), counted by the minute the envelope was received like the chunks; those of them no chunk of
 * their session spans are told after each share ({@link TransactionCoverage}). Memory: at most
 * {@code max-projects} project-hours, each with at most {@code max-sdks} SDKs, {@code max-sessions} profiler ids
 * that sent chunks and as many named by transactions. Thread-safe.
 */
@Singleton
public class HealthCounts implements SessionNames, LinkedSampleCounts {
    private static final Logger LOG = LoggerFactory.getLogger(HealthCounts.class);
    /** How long after its end an hour stays in memory: past the longest a worker holds a chunk it received. */
    static final Duration HELD_AFTER_HOUR = Duration.ofMinutes(10);

    /** This process's name among the replicas sharing the bucket. */
    private final String replica = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final HealthObjects objects;
    private final HealthConfig config;
    private final HealthMeters meters;
    private final Clock clock;
    private final Map<HourKey, Held> hours = new ConcurrentHashMap<>();
    private final TransactionCoverage coverage;

    private record HourKey(String project, long hourNanos) {
    }

    /** An hour's counts, its changes, and the part that holds them as of {@code writtenChanges}. */
    private static final class Held {
        private final HourCounts counts;
        private long changes;
        private long writtenChanges;
        private HealthObjects.Part written;

        private Held(HourCounts counts, HealthObjects.Part written) {
            this.counts = counts;
            this.written = written;
        }
    }

    public HealthCounts(HealthObjects objects, HealthConfig config, LinksConfig links, MeterRegistry registry,
                        Clock clock, BackgroundWork work) {
        this.objects = objects;
        this.config = config;
        this.meters = new HealthMeters(registry);
        this.clock = clock;
        this.coverage = new TransactionCoverage(new HealthParts(objects), config.maxHeldTransactions(),
                HealthQuestions.silenceMargin(links), config.shareInterval());
        ClockedSchedule schedule = work.schedule("health");
        schedule.every(config.shareInterval(), config.shareInterval(), () -> {
            // told only once this replica's chunks are in the bucket, where the telling reads every replica's
            if (shareQuietly()) {
                tellCoverageQuietly();
            }
        });
        work.atStop(BackgroundWork.Stage.PERIODIC, "health counts", left -> shareQuietly());
    }

    /**
     * A chunk archived: its samples as received and as dropped by rule, its profiler session and the time its samples
     * span, {@code [firstSampleNanos, lastSampleNanos]}.
     */
    public void accepted(long project, Instant receivedAt, SdkKey sdk, String profilerId, SampleCounts samples,
                         long firstSampleNanos, long lastSampleNanos) {
        count(project, receivedAt, sdk, (counts, key, minute) -> {
            counts.add(key, minute, HourCounts.CHUNKS, 1);
            counts.add(key, minute, HourCounts.SAMPLES, samples.received());
            for (SampleDropRule rule : SampleDropRule.values()) {
                counts.add(key, minute, HourCounts.DROPPED + rule.ruleName(), samples.dropped(rule));
            }
            counts.session(key, minute, profilerId, firstSampleNanos, lastSampleNanos, config.maxSessions());
        });
        coverage.covered(profilerId, firstSampleNanos, lastSampleNanos);
        for (SampleDropRule rule : SampleDropRule.values()) {
            if (samples.dropped(rule) > 0) {
                meters.dropped(sdk, rule, samples.dropped(rule));
            }
        }
    }

    /** A chunk refused, by Relay's reason name or {@code internal_error}. */
    public void rejected(long project, Instant receivedAt, SdkKey sdk, String reason) {
        count(project, receivedAt, sdk,
                (counts, key, minute) -> counts.add(key, minute, HourCounts.REJECTED + reason, 1));
        meters.rejected(sdk, reason);
    }

    /**
     * Transactions naming profiler ids, under the SDK the transaction (else the envelope) names; each held until it
     * is told whether a chunk of its session spans it.
     */
    @Override
    public void named(long project, Instant receivedAt, SpanItems.Sender sender, List<SpanRecord> transactions) {
        SdkKey sdk = new SdkKey(sender.name(), sender.version(), sender.platform());
        Map<String, Integer> named = new LinkedHashMap<>();
        transactions.forEach(transaction -> named.merge(transaction.profilerId(), 1, Integer::sum));
        count(project, receivedAt, sdk, (counts, key, minute) -> named.forEach((profilerId, times) -> {
            counts.add(key, minute, HourCounts.TRANSACTIONS, times);
            counts.named(key, minute, profilerId, times, config.maxSessions());
        }));
        long receivedNanos = TimeBuckets.nanos(receivedAt);
        boolean allHeld = true;
        for (SpanRecord transaction : transactions) {
            allHeld &= coverage.hold(new TransactionCoverage.Held(project, sdk, receivedNanos,
                    transaction.profilerId(), transaction.startNanos(), transaction.endNanos()));
        }
        if (!allHeld) {
            count(project, receivedAt, sdk, (counts, key, minute) -> counts.capSessions(key));
        }
    }

    /** Tells the held transactions that are due, counting those no chunk of their session spans. */
    void tellCoverage() {
        coverage.tell(TimeBuckets.nanos(clock.instant()), transaction -> count(transaction.project(),
                Instant.ofEpochSecond(0, transaction.receivedNanos()), transaction.sdk(), (counts, key, minute) ->
                        counts.add(key, minute, HourCounts.TRANSACTIONS_UNCOVERED, 1)));
    }

    private void tellCoverageQuietly() {
        try {
            tellCoverage();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("transactions' coverage not told, tried again in {}: {}", config.shareInterval(),
                    e.getMessage());
        }
    }

    /**
     * A chunk's samples as linked when it was derived, under the SDK and minute of its receipt; a chunk with no
     * linkable sample changes nothing.
     */
    @Override
    public void linked(long project, ChunkReceipt receipt, int linkedSamples, int linkableSamples) {
        if (linkableSamples == 0) {
            return;
        }
        count(project, receipt.receivedAt(), new SdkKey(receipt.sdk(), receipt.sdkVersion(), receipt.platform()),
                (counts, key, minute) -> {
                    counts.add(key, minute, HourCounts.LINKED_SAMPLES, linkedSamples);
                    counts.add(key, minute, HourCounts.LINKABLE_SAMPLES, linkableSamples);
                });
    }

    private interface Count {
        void into(HourCounts counts, SdkKey sdk, int minute);
    }

    private void count(long project, Instant receivedAt, SdkKey sdk, Count count) {
        long nanos = TimeBuckets.nanos(receivedAt);
        long hour = TimeBuckets.bucketOf(RollupTier.HOUR, nanos);
        int minute = TimeBuckets.minuteOfHour(nanos);
        HourKey key = new HourKey(ProjectIds.format(project), hour);
        Held held = hours.get(key);
        if (held == null) {
            if (hours.size() >= config.maxProjects()) {
                meters.leftOut();
                return;
            }
            held = hours.computeIfAbsent(key, this::resume);
        }
        synchronized (held) {
            SdkKey counted = held.counts.has(sdk) || held.counts.sdkCount() < config.maxSdks() ? sdk : SdkKey.OTHER;
            count.into(held.counts, counted, minute);
            held.changes++;
        }
    }

    /**
     * Starts holding an hour: empty while it is the clock's, else continued from this replica's part in the bucket
     * (a chunk received in an hour already let go).
     */
    private Held resume(HourKey key) {
        if (key.hourNanos() >= TimeBuckets.bucketOf(RollupTier.HOUR, TimeBuckets.nanos(clock.instant()))) {
            return new Held(new HourCounts(), null);
        }
        try {
            Optional<HealthObjects.Part> mine = objects.newestParts(key.project(), TimeBuckets.dayOf(key.hourNanos()))
                    .stream().filter(p -> p.replica().equals(replica) && p.hourNanos() == key.hourNanos())
                    .max(Comparator.comparingLong(HealthObjects.Part::sequence));
            if (mine.isPresent()) {
                Optional<HourCounts> counts = objects.read(mine.get()).flatMap(HourCodec::decode);
                if (counts.isPresent()) {
                    return new Held(counts.get(), mine.get());
                }
            }
        } catch (ArchiveUnavailableException e) {
            LOG.warn("health counts of project {} at {} not read back, counted apart: {}", key.project(),
                    Instant.ofEpochSecond(0, key.hourNanos()), e.getMessage());
        }
        return new Held(new HourCounts(), null);
    }

    /**
     * Writes every held hour that changed since its last write (then removes the older part), and lets go of the
     * hours that ended {@link #HELD_AFTER_HOUR} ago and are written.
     */
    public synchronized void share() {
        long now = TimeBuckets.nanos(clock.instant());
        Iterator<Map.Entry<HourKey, Held>> it = hours.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<HourKey, Held> entry = it.next();
            Held held = entry.getValue();
            byte[] bytes = null;
            long changes;
            synchronized (held) {
                changes = held.changes;
                if (changes != held.writtenChanges) {
                    bytes = HourCodec.encode(held.counts);
                }
            }
            if (bytes != null) {
                // written outside the hour's lock, so that the chunk path does not wait for the bucket
                HealthObjects.Part last = held.written;
                HealthObjects.Part next = new HealthObjects.Part(entry.getKey().project(),
                        entry.getKey().hourNanos(), replica, last == null ? 1 : last.sequence() + 1);
                objects.write(next, bytes);
                synchronized (held) {
                    held.written = next;
                    held.writtenChanges = changes;
                }
                if (last != null) {
                    objects.remove(last);
                }
            }
            long heldUntil = TimeBuckets.endOf(RollupTier.HOUR, entry.getKey().hourNanos()) + HELD_AFTER_HOUR.toNanos();
            if (now >= heldUntil) {
                synchronized (held) {
                    if (held.changes == held.writtenChanges) {
                        it.remove();
                    }
                }
            }
        }
    }

    private boolean shareQuietly() {
        try {
            share();
            return true;
        } catch (ArchiveUnavailableException e) {
            LOG.warn("health counts not shared, tried again in {}: {}", config.shareInterval(), e.getMessage());
            return false;
        }
    }
}
