package chunkrelay.envelope.auth;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.util.concurrent.TimeUnit;

/**
 * The per-minute quotas of {@code relay.projects.<id>.rate-limits}: chunks and decoded chunk bytes per project, in
 * each minute of the relay's clock (the quota minute of {@link TimeBuckets}). An envelope whose chunks would pass
 * either quota is refused whole (nothing of it is counted) until the minute ends. The minutes are counted by a
 * {@link QuotaCounter}: in this process by default, in Redis with {@code relay.redis.uri} so that replicas share
 * them. Projects without quotas are never limited.
 */
@Singleton
public class ProjectRateLimiter {
    private final ProjectRegistry projects;
    private final MeterRegistry meters;
    private final QuotaCounter counter;

    @Inject
    ProjectRateLimiter(ProjectRegistry projects, MeterRegistry meters, QuotaCounter counter) {
        this.projects = projects;
        this.meters = meters;
        this.counter = counter;
    }

    /** Counting in this process, in the minutes of the time buckets' clock. */
    public ProjectRateLimiter(ProjectRegistry projects, MeterRegistry meters, TimeBuckets buckets) {
        this(projects, meters, new LocalQuotaCounter(buckets));
    }

    /**
     * Takes {@code chunks} chunks of {@code bytes} decoded bytes from the project's quota.
     *
     * @param category the category named in the refusal, by the chunks' platform
     * @throws RateLimitedError when the quota cannot take them; the refusal says how long until it can
     */
    public void acquire(long projectId, int chunks, long bytes, ChunkCategory category) {
        ProjectConfig.RateLimits limits = projects.rateLimits(projectId);
        if (limits == null || chunks == 0) {
            return;
        }
        long refusedFor = counter.tryTake(projectId, chunks, bytes, limits);
        if (refusedFor > 0) {
            RelayMeter.CHUNKS_RATE_LIMITED.counter(meters, category.relayName(), "project")
                    .increment(chunks);
            // whole seconds, rounded up, as Relay tells them: a client retrying after them finds the window closed
            long seconds = Math.max(1, (refusedFor + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1));
            throw new RateLimitedError(seconds, category);
        }
    }
}
