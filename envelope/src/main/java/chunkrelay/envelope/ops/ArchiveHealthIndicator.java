package chunkrelay.envelope.ops;

import chunkrelay.storage.ChunkArchive;
import io.micronaut.context.annotation.Value;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Readiness follows the archive: a relay that cannot archive answers every chunk with 503, so it should get no
 * traffic. The probe ({@link ChunkArchive#reachable()}, one HeadBucket) runs at most once per
 * {@code relay.health.archive-check-interval}; probes in between get the last answer, so health checks of
 * several kinds do not multiply requests to S3.
 */
@Singleton
@Readiness
public class ArchiveHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
    private final ChunkArchive archive;
    private final long intervalNanos;
    private long checkedAtNanos;
    private boolean reachable;
    private boolean checked;

    public ArchiveHealthIndicator(ChunkArchive archive,
                                  @Value("${relay.health.archive-check-interval:2s}") Duration interval) {
        this.archive = archive;
        this.intervalNanos = interval.toNanos();
    }

    @Override
    protected String getName() {
        return "archive";
    }

    @Override
    protected Map<String, Object> getHealthInformation() {
        boolean up = reachable();
        healthStatus = up ? HealthStatus.UP : HealthStatus.DOWN;
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("target", archive.settings().describeTarget());
        details.put("reachable", up);
        return details;
    }

    private synchronized boolean reachable() {
        long now = System.nanoTime();
        if (!checked || now - checkedAtNanos >= intervalNanos) {
            reachable = archive.reachable();
            checkedAtNanos = System.nanoTime();
            checked = true;
        }
        return reachable;
    }
}
