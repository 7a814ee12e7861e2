package chunkrelay.envelope.auth;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The per-minute window of a project's quotas, on a clock the test moves. */
class ProjectRateLimiterTest {
    private final AtomicLong clock = new AtomicLong(TimeUnit.HOURS.toNanos(5));
    private final ProjectRegistry projects = new ProjectRegistry(List.of(
            new ProjectConfig("1", null, null, new ProjectConfig.RateLimits(3L, null), null),
            new ProjectConfig("2", null, null, new ProjectConfig.RateLimits(null, 100L), null)));
    private final ProjectRateLimiter limiter = new ProjectRateLimiter(projects, new SimpleMeterRegistry(), clock::get);

    @Test
    void refusesOnceTheQuotaIsSpentUntilTheWindowCloses() {
        limiter.acquire(1, 2, 10, ChunkCategory.PROFILE_CHUNK);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(20_500));
        limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK);

        RateLimitedError refused = assertThrows(RateLimitedError.class,
                () -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK));
        // 39.5 s left of the window that opened with the first chunk, rounded up
        assertEquals(40, refused.retryAfterSeconds());
        assertEquals("40:profile_chunk:project:project_quota", refused.rateLimitsHeader());

        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(39_500));
        assertDoesNotThrow(() -> limiter.acquire(1, 3, 10, ChunkCategory.PROFILE_CHUNK));
    }

    @Test
    void aRefusedEnvelopeTakesNothingFromTheQuota() {
        limiter.acquire(2, 1, 60, ChunkCategory.PROFILE_CHUNK_UI);
        RateLimitedError refused = assertThrows(RateLimitedError.class,
                () -> limiter.acquire(2, 1, 41, ChunkCategory.PROFILE_CHUNK_UI));
        assertEquals("60:profile_chunk_ui:project:project_quota", refused.rateLimitsHeader());

        assertDoesNotThrow(() -> limiter.acquire(2, 1, 40, ChunkCategory.PROFILE_CHUNK_UI));
    }

    @Test
    void leavesProjectsWithoutQuotasAlone() {
        for (int i = 0; i < 1000; i++) {
            limiter.acquire(3, 1, 1 << 20, ChunkCategory.PROFILE_CHUNK);
        }
        assertThrows(RateLimitedError.class, () -> {
            limiter.acquire(1, 3, 0, ChunkCategory.PROFILE_CHUNK);
            limiter.acquire(1, 1, 0, ChunkCategory.PROFILE_CHUNK);
        });
    }

    @Test
    void namesTheUiCategoryForCocoaAndroidAndJavascriptOnly() {
        for (String ui : List.of("cocoa", "android", "javascript")) {
            assertEquals(ChunkCategory.PROFILE_CHUNK_UI, ChunkCategory.ofPlatform(ui), ui);
        }
        for (String backend : List.of("node", "java", "python", "go")) {
            assertEquals(ChunkCategory.PROFILE_CHUNK, ChunkCategory.ofPlatform(backend), backend);
        }
        assertEquals(ChunkCategory.PROFILE_CHUNK, ChunkCategory.ofPlatform(null));
    }
}
