package chunkrelay.envelope.auth;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.storage.TimeBuckets;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.concurrent.TimeUnit;

/**
 * Quota windows of this process alone: a project's window is the minute of the relay's clock its chunks come in
 * (the quota minute of {@link TimeBuckets}, as {@link RedisQuotaCounter} counts it). Windows live in a Caffeine cache
 * and expire when idle. With several replicas each counts its own, so they let through a multiple of the quota: use
 * {@link RedisQuotaCounter} there.
 */
final class LocalQuotaCounter implements QuotaCounter {
    private final TimeBuckets buckets;
    private final Cache<Long, Window> windows = Caffeine.newBuilder()
            .executor(BackgroundWork.cacheMaintenance())
            .expireAfterAccess(TimeBuckets.MINUTE_NANOS, TimeUnit.NANOSECONDS)
            .maximumSize(100_000)
            .build();

    LocalQuotaCounter(TimeBuckets buckets) {
        this.buckets = buckets;
    }

    @Override
    public long tryTake(long projectId, int chunks, long bytes, ProjectConfig.RateLimits limits) {
        long now = buckets.now();
        long minute = TimeBuckets.minuteOf(now);
        long[] refusedFor = {0};
        windows.asMap().compute(projectId, (id, current) -> {
            Window window = current == null || current.minute != minute ? new Window(minute) : current;
            boolean over = limits.chunksPerMinute() != null && window.chunks + chunks > limits.chunksPerMinute()
                    || limits.bytesPerMinute() != null && window.bytes + bytes > limits.bytesPerMinute();
            if (over) {
                refusedFor[0] = Math.max(1, minute + TimeBuckets.MINUTE_NANOS - now);
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
        private final long minute;
        private long chunks;
        private long bytes;

        Window(long minute) {
            this.minute = minute;
        }
    }
}
