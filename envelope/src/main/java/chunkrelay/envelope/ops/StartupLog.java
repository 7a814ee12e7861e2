package chunkrelay.envelope.ops;

import chunkrelay.envelope.archive.StorageConfig;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.auth.RedisQuotaConfig;
import chunkrelay.envelope.disk.DiskGuard;
import chunkrelay.envelope.ingest.RelayLimits;
import chunkrelay.envelope.upstream.UpstreamConfig;
import chunkrelay.envelope.views.ViewsConfig;

import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/** Says where the relay listens, how it authenticates, where it archives and forwards, once the server is up. */
@Singleton
public class StartupLog implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(StartupLog.class);

    private final ProjectRegistry projects;
    private final RelayLimits limits;
    private final ChunkArchive archive;
    private final EmbeddedS3Server embedded;
    private final String otlpEndpoint;
    private final UpstreamConfig upstream;
    private final RedisQuotaConfig redis;
    private final ViewsConfig views;
    private final DiskGuard diskGuard;
    private final StorageConfig storage;

    public StartupLog(ProjectRegistry projects, RelayLimits limits, ChunkArchive archive,
                      @Nullable EmbeddedS3Server embedded, @Value("${relay.otlp.endpoint:}") String otlpEndpoint,
                      UpstreamConfig upstream, RedisQuotaConfig redis, ViewsConfig views, DiskGuard diskGuard,
                      StorageConfig storage) {
        this.projects = projects;
        this.limits = limits;
        this.archive = archive;
        this.embedded = embedded;
        this.otlpEndpoint = otlpEndpoint;
        this.upstream = upstream;
        this.redis = redis;
        this.views = views;
        this.diskGuard = diskGuard;
        this.storage = storage;
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        String auth = projects.openMode()
                ? "open mode: no relay.projects configured, any well-formed key may send to any project"
                : "projects " + projects.projectIds() + " from relay.projects, other projects and keys get 401";
        String quotas = redis.enabled() ? "counted in Redis (relay.redis.uri), shared with other replicas"
                : "counted in this process (relay.redis.uri unset)";
        String archiveTarget = embedded == null
                ? archive.settings().describeTarget()
                : "embedded S3 server, files under " + embedded.directory().map(Object::toString).orElse("memory")
                        + " (" + archive.settings().describeTarget() + ")";
        String forwarding = otlpEndpoint.isBlank() ? "off (relay.otlp.endpoint unset; chunks are archived only)"
                : otlpEndpoint;
        String upstreamTarget = upstream.enabled()
                ? upstream.base() + (upstream.forwardProfileChunks() ? " (profile chunks too)" : "")
                : "off (relay.upstream.url unset; other items are counted and dropped)";
        Duration kept = storage.retentionPeriod();
        String retention = kept.isZero() ? "forever (relay.storage.retention: 0)"
                : (kept.equals(Duration.ofDays(kept.toDays())) ? kept.toDays() + "d" : kept.toString())
                        + " (relay.storage.retention), swept every " + storage.retentionInterval();
        LOG.info("chunk-relay listening on {} (envelopes: POST {}api/<project_id>/envelope/) after {} ms; auth: {}; "
                        + "quotas: {}; archive: {}; kept: {}; disk guard: {}; forwarding: {}; upstream Sentry: {}; "
                        + "views (page at {}): {}; limits: envelope {} bytes, profile chunk {} bytes",
                event.getSource().getURL(), event.getSource().getURI().resolve("/"),
                ManagementFactory.getRuntimeMXBean().getUptime(), auth, quotas, archiveTarget, retention,
                diskGuard.describe(), forwarding, upstreamTarget, event.getSource().getURI().resolve("/"),
                views.describe(), limits.maxEnvelopeBytes(), limits.maxChunkBytes());
    }
}
