package chunkrelay.envelope.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Quota windows of this process alone: a project's window opens with its first chunk and lasts
 * {@link ProjectRateLimiter#WINDOW}. Windows live in a Caffeine cache and expire when idle. With several replicas
 * each counts its own, so they let through a multiple of the quota: use {@link RedisQuotaCounter} there.
 */
final class LocalQuotaCounter implements QuotaCounter {
    private static final long WINDOW_NANOS = ProjectRateLimiter.WINDOW.toNanos();

    private final LongSupplier nanoTime;
    private final Cache<Long, Window> windows = Caffeine.newBuilder()
            .expireAfterAccess(WINDOW_NANOS, TimeUnit.NANOSECONDS)
            .maximumSize(100_000)
            .build();

    LocalQuotaCounter(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    @Override
    public long tryTake(long projectId, int chunks, long bytes, ProjectConfig.RateLimits limits) {
        long now = nanoTime.getAsLong();
        long[] refusedFor = {0};
        windows.asMap().compute(projectId, (id, current) -> {
            Window window = current == null || now - current.startNanos >= WINDOW_NANOS ? new Window(now) : current;
            boolean over = limits.chunksPerMinute() != null && window.chunks + chunks > limits.chunksPerMinute()
                    || limits.bytesPerMinute() != null && window.bytes + bytes > limits.bytesPerMinute();
            if (over) {
                refusedFor[0] = Math.max(1, window.startNanos + WINDOW_NANOS - now);
            } else {
                window.chunks += chunks;
                window.bytes += bytes;
            }
            return window;
        });
        return refusedFor[0];
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
