package chunkrelay.envelope.disk;

import chunkrelay.storage.EmbeddedS3Server;
import io.micronaut.context.annotation.Requires;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.annotation.Readiness;
import jakarta.inject.Singleton;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Readiness is DOWN while the embedded store's disk is below its minimum of free space, with the reason, so that a
 * load balancer sends envelopes to replicas that can take them; liveness is not affected (the relay takes envelopes
 * again by itself once there is room).
 */
@Singleton
@Readiness
@Requires(beans = EmbeddedS3Server.class)
public class DiskGuardHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {
    private final DiskGuard guard;

    public DiskGuardHealthIndicator(DiskGuard guard) {
        this.guard = guard;
    }

    @Override
    protected String getName() {
        return "disk";
    }

    @Override
    protected Map<String, Object> getHealthInformation() {
        long free = guard.freeBytes();
        boolean below = free < guard.minFreeBytes();
        healthStatus = below ? HealthStatus.DOWN : HealthStatus.UP;
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("directory", guard.directory());
        details.put("free-bytes", free);
        details.put("min-free-bytes", guard.minFreeBytes());
        if (below) {
            details.put("reason", "free disk below relay.storage.embedded.min-free-disk: envelopes are refused with "
                    + "503 until there is room");
        }
        return details;
    }
}
