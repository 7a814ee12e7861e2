package chunkrelay.envelope;

import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;

/** Says where the relay listens and how it authenticates, once the server is up. */
@Singleton
public class StartupLog implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(StartupLog.class);

    private final ProjectRegistry projects;
    private final RelayLimits limits;

    public StartupLog(ProjectRegistry projects, RelayLimits limits) {
        this.projects = projects;
        this.limits = limits;
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        String auth = projects.openMode()
                ? "open mode: no relay.projects configured, any well-formed key may send to any project"
                : "projects " + projects.projectIds() + " from relay.projects, other projects and keys get 401";
        LOG.info("chunk-relay listening on {} (envelopes: POST {}api/<project_id>/envelope/) after {} ms; auth: {}; "
                        + "limits: envelope {} bytes, profile chunk {} bytes",
                event.getSource().getURL(), event.getSource().getURI().resolve("/"),
                ManagementFactory.getRuntimeMXBean().getUptime(), auth, limits.maxEnvelopeBytes(),
                limits.maxChunkBytes());
    }
}
