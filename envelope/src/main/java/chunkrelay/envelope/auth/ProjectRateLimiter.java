package chunkrelay.envelope.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The per-minute quotas of {@code relay.projects.<id>.rate-limits}: chunks and decoded chunk bytes per project.
 * A project's window opens with its first chunk and lasts a minute; an envelope whose chunks would pass either
 * quota is refused whole (nothing of it is counted) until the window closes. Windows live in a Caffeine cache
 * and expire when idle; projects without quotas are never limited.
 */
@Singleton
public class ProjectRateLimiter {
    static final Duration WINDOW = Duration.ofMinutes(1);

    private final ProjectRegistry projects;
    private final MeterRegistry meters;
    private final LongSupplier nanoTime;
    private final Cache<Long, Window> windows = Caffeine.newBuilder()
            .expireAfterAccess(WINDOW.toNanos(), TimeUnit.NANOSECONDS)
            .maximumSize(100_000)
            .build();

    @Inject
    public ProjectRateLimiter(ProjectRegistry projects, MeterRegistry meters) {
        this(projects, meters, System::nanoTime);
    }

    /** With a clock of its own, for tests of the window. */
    ProjectRateLimiter(ProjectRegistry projects, MeterRegistry meters, LongSupplier nanoTime) {
        this.projects = projects;
        this.meters = meters;
        this.nanoTime = nanoTime;
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
        long now = nanoTime.getAsLong();
        long[] refusedFor = {0};
        windows.asMap().compute(projectId, (id, current) -> {
            Window window = current == null || now - current.startNanos >= WINDOW.toNanos() ? new Window(now) : current;
            boolean over = limits.chunksPerMinute() != null && window.chunks + chunks > limits.chunksPerMinute()
                    || limits.bytesPerMinute() != null && window.bytes + bytes > limits.bytesPerMinute();
            if (over) {
                refusedFor[0] = window.startNanos + WINDOW.toNanos() - now;
            } else {
                window.chunks += chunks;
                window.bytes += bytes;
            }
            return window;
        });
        if (refusedFor[0] > 0) {
            meters.counter("relay.chunks.rate_limited", "category", category.relayName(), "scope", "project")
                    .increment(chunks);
            // whole seconds, rounded up, as Relay tells them: a client retrying after them finds the window closed
            long seconds = Math.max(1, (refusedFor[0] + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1));
            throw new RateLimitedError(seconds, category);
        }
    }

    /** One project's current window; guarded by the cache's compute. */
    private static final class Window {
        private final long startNanos;
        private long chunks;
        private long bytes;

        Window(long startNanos) {
            this.startNanos = startNanos;
        }
    }
}
