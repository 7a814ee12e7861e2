package chunkrelay.envelope.auth;

import chunkrelay.retry.TestClock;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The per-minute window of a project's quotas counted in this process, on a clock the test moves. */
class ProjectRateLimiterTest {
    /** 50 s into a minute of the clock. */
    private final TestClock clock = new TestClock(Instant.parse("2026-11-25T12:00:50Z"));
    private final ProjectRegistry projects = new ProjectRegistry(List.of(
            new ProjectConfig("1", null, null, new ProjectConfig.RateLimits(3L, null), null),
            new ProjectConfig("2", null, null, new ProjectConfig.RateLimits(null, 100L), null)));
    private final ProjectRateLimiter limiter = new ProjectRateLimiter(projects, new SimpleMeterRegistry(),
            new TimeBuckets(clock, Duration.ofSeconds(45)));

    @Test
    void theWindowIsTheMinuteOfTheClockNotAMinuteFromTheFirstChunk() {
        limiter.acquire(1, 2, 10, ChunkCategory.PROFILE_CHUNK);
        clock.advance(Duration.ofMillis(5_500));
        limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK);

        RateLimitedError refused = assertThrows(RateLimitedError.class,
                () -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK));
        // 4.5 s left of the clock's minute, rounded up (a window opened by the first chunk would have 44.5 s left)
        assertEquals(5, refused.retryAfterSeconds());
        assertEquals("5:profile_chunk:project:project_quota", refused.rateLimitsHeader());

        clock.advance(Duration.ofMillis(4_500).minusNanos(1));
        assertThrows(RateLimitedError.class, () -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK),
                "a nanosecond before the minute ends");
        clock.advance(Duration.ofNanos(1));
        assertDoesNotThrow(() -> limiter.acquire(1, 3, 10, ChunkCategory.PROFILE_CHUNK), "the next minute");
        assertThrows(RateLimitedError.class, () -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK));
    }

    @Test
    void aRefusedEnvelopeTakesNothingFromTheQuota() {
        limiter.acquire(2, 1, 60, ChunkCategory.PROFILE_CHUNK_UI);
        RateLimitedError refused = assertThrows(RateLimitedError.class,
                () -> limiter.acquire(2, 1, 41, ChunkCategory.PROFILE_CHUNK_UI));
        // the 10 s left of the clock's minute
        assertEquals("10:profile_chunk_ui:project:project_quota", refused.rateLimitsHeader());

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
