package chunkrelay.envelope.retention;

import chunkrelay.envelope.archive.StorageConfig;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.rollups.RollupConfig;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.ObjectStore;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.RetentionSweep;
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
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the {@link RetentionSweep} every {@code relay.storage.retention-interval} of the relay's clock, at start first,
 * on one replica of those sharing the bucket at a time: the holder of the lease {@code retention/sweep-{n}}, whose
 * term is the interval, renewed by its holder at each sweep, so one replica keeps sweeping and another takes over
 * one or two intervals after it stops. After each sweep it publishes what each project keeps
 * ({@link ArchiveSizes}); a replica that does not hold the lease publishes none, so the sizes are counted once.
 *
 * <p>Its {@link ClockedSchedule} looks every second of the clock whether a sweep is due; a test on a test clock holds
 * the background work, moves the clock and calls {@link #runDue}. In the server only: absent from the command lines'
 * {@code cli} environment.
 */
@Singleton
@Requires(notEnv = Environment.CLI)
public class ArchiveRetention implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveRetention.class);
    /** The key prefix of the sweep's lease objects. */
    /**
     * The span log links chunks derived late: within their window, at a recovery search (today and yesterday) or at
     * a replay of recent days. Two days covers all but a replay of older days, which then derives without the spans.
     */
    static final Duration SPAN_LOG_USE = Duration.ofDays(2);
    private static final Duration RETRY = Duration.ofMinutes(1);
    /** How often the schedule looks whether a sweep is due. */
    private static final Duration LOOK = Duration.ofSeconds(1);

    private final StorageConfig config;
    private final Duration defaultRetention;
    private final Clock clock;
    private final ObjectLease lease;
    private final RetentionSweep sweep;
    private final ArchiveSizes sizes;
    private final Counter sweeps;
    private final Counter failures;
    private final AtomicLong deletedObjects = new AtomicLong();
    private final AtomicLong deletedBytes = new AtomicLong();
    private Instant next = Instant.MIN;
    private final ClockedSchedule schedule;

    public ArchiveRetention(ObjectStore store, StorageConfig config, RollupConfig rollups, ProjectRegistry projects,
                            MeterRegistry meters, Clock clock, BackgroundWork work) {
        this.config = config;
        this.defaultRetention = config.retentionPeriod();
        this.clock = clock;
        this.lease = new ObjectLease(store, ArchiveLayout.RETENTION_LEASE, config.retentionInterval(), clock,
                UUID.randomUUID().toString().substring(0, 8));
        Counter objects = RelayMeter.RETENTION_DELETED_OBJECTS.counter(meters);
        Counter bytes = RelayMeter.RETENTION_DELETED_BYTES.counter(meters);
        this.sweep = new RetentionSweep(store, new RetentionSweep.Rules(
                project -> retentionOf(projects, project), defaultRetention, SPAN_LOG_USE,
                rollups.detailRetention()), clock,
                (project, size) -> {
                    objects.increment();
                    bytes.increment(size);
                    deletedObjects.incrementAndGet();
                    deletedBytes.addAndGet(size);
                });
        this.sizes = new ArchiveSizes(meters);
        this.sweeps = RelayMeter.RETENTION_SWEEPS.counter(meters, "swept");
        this.failures = RelayMeter.RETENTION_SWEEPS.counter(meters, "failed");
        this.schedule = work.schedule("retention-sweep");
        work.atStop(BackgroundWork.Stage.PERIODIC, "the retention lease", left -> releaseLease());
    }

    private Duration retentionOf(ProjectRegistry projects, String project) {
        Duration own = ProjectIds.parse(project).map(projects::retention).orElse(null);
        return own != null ? own : defaultRetention;
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        schedule.every(LOOK, Duration.ZERO, this::runDue);
    }

    private void releaseLease() {
        try {
            lease.release();
        } catch (ArchiveUnavailableException e) {
            LOG.debug("could not release the retention lease; it lapses by itself: {}", e.getMessage());
        }
    }

    /**
     * Sweeps when an interval has passed on the clock since the last sweep (at once the first time) and this
     * replica holds the lease; in the calling thread, one call at a time, so a caller that returns sees the sweep due
     * by then done, by it or by the thread.
     */
    public synchronized void runDue() {
        Instant now = clock.instant();
        if (now.isBefore(next)) {
            return;
        }
        next = now.plus(config.retentionInterval());
        try {
            if (!lease.acquire()) {
                sizes.clear();
                return;
            }
            long objectsBefore = deletedObjects.get();
            long bytesBefore = deletedBytes.get();
            Map<String, RetentionSweep.Size> kept = sweep.sweep();
            sizes.publish(kept);
            sweeps.increment();
            long objects = deletedObjects.get() - objectsBefore;
            if (objects > 0) {
                LOG.info("retention sweep deleted {} objects ({} bytes); kept by project: {}", objects,
                        deletedBytes.get() - bytesBefore, kept);
            }
        } catch (ArchiveUnavailableException e) {
            failures.increment();
            // an outage should not cost a whole interval: the sweep picks up where it stopped
            Duration retry = config.retentionInterval().compareTo(RETRY) < 0 ? config.retentionInterval() : RETRY;
            next = now.plus(retry);
            LOG.warn("retention sweep stopped early, the archive is unavailable; it runs again in {}: {}", retry,
                    e.getMessage());
        }
    }
}
