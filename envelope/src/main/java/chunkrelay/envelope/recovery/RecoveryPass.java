package chunkrelay.envelope.recovery;

import chunkrelay.envelope.forward.DeliveryMarkers;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveHeartbeats;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.export.DeliveryResult;
import chunkrelay.translate.export.OtlpHttpExporter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Delivers what no relay delivered: chunks archived by a relay that was killed before forwarding them, dropped
 * at a graceful stop, or refused by a target that was down. Every {@code relay.recovery.interval} it beats
 * ({@code forwarders/{id}}, {@link ArchiveHeartbeats}) and, when there can be something to find (see {@link #run}),
 * lists the archive's recent days ({@link RecoveryConfig#days()}, days of first samples, so also days ahead of today
 * for a client whose clock runs ahead) and sends the OTLP form of each chunk that has had neither a
 * delivery marker nor a refusal marker for {@code grace} (counted from when this relay first saw it so, which needs no clock shared
 * with the bucket), once per chunk across all replicas on the bucket. A listing costs every chunk of those days,
 * so a relay whose forwarding delivers does not list at all after its start.
 *
 * <p>A replica sends a chunk only after claiming it: the chunk's {@link ObjectLease}
 * {@code {stem}.recovery-lease-{n}} ({@link DeliveryLeases}); of all replicas exactly one acquires it, it holds for at
 * least one whole lease, longer than an export's retries take, and a claimer that died leaves its chunk to another
 * replica one or two leases later. After claiming, the delivery marker is checked again (another
 * replica may just have delivered it); after a 2xx the marker is written, then the lease removed.
 *
 * <p>Runs in the server only, on one thread of its own, every interval of the relay's clock
 * ({@link ClockedSchedule}); absent from the command lines' {@code cli} environment.
 */
@Singleton
@Requires(property = "relay.otlp.endpoint")
@Requires(notEnv = Environment.CLI)
public class RecoveryPass implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryPass.class);

    private final ChunkArchive archive;
    private final OtlpHttpExporter exporter;
    private final RecoveryConfig config;
    private final MeterRegistry meters;
    private final Clock clock;
    private final TimeBuckets buckets;
    private final DeliveryLeases leases;
    private final DeliveryMarkers markers;
    /** {@code forwarders/{id}}: relays whose forwarding may leave chunks undelivered if they die. */
    private final ArchiveHeartbeats heartbeats;
    private final Counter searches;
    /** Whether the archive was searched since start; pass thread only. */
    private boolean searched;
    /** Undelivered chunks by stem, with when (clock millis) this relay first saw them so; pass thread only. */
    private final Map<String, Long> firstSeenUndelivered = new HashMap<>();
    private final ClockedSchedule schedule;

    public RecoveryPass(ChunkArchive archive, OtlpHttpExporter exporter, RecoveryConfig config, MeterRegistry meters,
                        DeliveryMarkers markers, Clock clock, TimeBuckets buckets, BackgroundWork work) {
        this.archive = archive;
        this.exporter = exporter;
        this.config = config;
        this.meters = meters;
        this.markers = markers;
        this.clock = clock;
        this.buckets = buckets;
        this.leases = new DeliveryLeases(archive.store(), config.lease(), clock);
        this.heartbeats = new ArchiveHeartbeats(archive.store(), ArchiveLayout.FORWARDERS, config.interval(),
                config.interval().multipliedBy(3), clock);
        this.searches = RelayMeter.RECOVERY_DELIVERY_SEARCHES.counter(meters);
        this.schedule = work.schedule("recovery-pass");
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        if (!config.enabled()) {
            return;
        }
        schedule.every(config.interval(), config.interval(), this::runQuietly);
    }

    /** Runs the pass if an interval has passed on the clock since the last; for a test that moved a test clock. */
    void runDue() {
        schedule.runDue();
    }

    private void runQuietly() {
        try {
            run();
        } catch (ArchiveUnavailableException e) {
            LOG.warn("recovery pass stopped early, the archive is unavailable: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("recovery pass failed", e);
        }
    }

    /**
     * One pass: a heartbeat, then a search of the recent days of every project in the archive when there can be
     * something to find: at start, while chunks found undelivered wait for their grace, after this relay marked a
     * chunk for replay, and when another relay stopped beating. A relay whose forwarding delivers lists nothing.
     */
    void run() throws InterruptedException {
        heartbeats.beat();
        boolean replayMarked = markers.takeReplayMarked();
        boolean search = !searched || !firstSeenUndelivered.isEmpty() || replayMarked;
        List<String> dead = heartbeats.claimStale();
        if (!dead.isEmpty()) {
            LOG.info("relays {} stopped beating; searching the archive for chunks they left undelivered", dead);
        }
        if (search || !dead.isEmpty()) {
            search();
            searched = true;
            dead.forEach(heartbeats::recovered);
        }
    }

    /** One search over the recent days of every project in the archive. */
    private void search() throws InterruptedException {
        searches.increment();
        LocalDate today = buckets.today();
        LocalDate from = today.minusDays(Math.max(1, config.days()) - 1L);
        Set<String> stillUndelivered = new HashSet<>();
        for (String project : archive.listProjects()) {
            for (LocalDate day : archive.listDays(project)) {
                if (day.isBefore(from)) {
                    continue;
                }
                for (ArchivedChunk chunk : archive.list(project, day, day)) {
                    if (chunk.delivered() || chunk.refused()) {
                        continue;
                    }
                    String stem = chunk.key().stem();
                    stillUndelivered.add(stem);
                    long now = clock.millis();
                    long firstSeen = firstSeenUndelivered.computeIfAbsent(stem, s -> now);
                    if (now - firstSeen >= config.grace().toMillis()) {
                        recover(chunk);
                    }
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            }
        }
        firstSeenUndelivered.keySet().retainAll(stillUndelivered);
    }

    /** The day a folder below a project names, or null for anything else. */

    private void recover(ArchivedChunk chunk) throws InterruptedException {
        ArchiveKey key = chunk.key();
        ObjectLease lease = leases.of(key);
        if (!lease.acquire()) {
            return; // another replica holds it
        }
        if (archive.isDelivered(key)) {
            lease.release();
            return;
        }
        DeliveryResult result = exporter.export(archive.readOtlp(chunk));
        if (result.delivered()) {
            archive.markDelivered(key);
            lease.release();
            firstSeenUndelivered.remove(key.stem());
            RelayMeter.RECOVERY_CHUNKS.counter(meters, "delivered").increment();
            LOG.info("recovered chunk {}: delivered after no relay had", key.stem());
        } else if (result.refused()) {
            archive.markRefused(key, result.reason());
            lease.release();
            firstSeenUndelivered.remove(key.stem());
            RelayMeter.RECOVERY_CHUNKS.counter(meters, "refused").increment();
            LOG.warn("recovery of chunk {}: the OTLP endpoint refused it for good: {}", key.stem(), result.reason());
        } else {
            // the lease stays, so no replica tries again before it has run out
            archive.markForReplay(key, result.reason());
            RelayMeter.RECOVERY_CHUNKS.counter(meters, "failed").increment();
            LOG.warn("recovery of chunk {} failed, tried again after the lease: {}", key.stem(), result.reason());
        }
    }
}
