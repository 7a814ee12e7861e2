package chunkrelay.envelope.auth;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.RedisServer;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Quota windows counted in a real Redis, on a clock the test moves. */
@Tag("external")
class RedisQuotaCounterTest {
    @TempDir
    static Path work;
    private static RedisServer redis;

    /**
     * 50 s into a minute two minutes ahead: ahead, because Redis expires the counters by its own clock at the
     * minute's end.
     */
    private TestClock clock = new TestClock(Instant.ofEpochSecond((System.currentTimeMillis() / 60_000 + 2) * 60 + 50));
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ProjectRegistry projects = new ProjectRegistry(List.of(
            new ProjectConfig("1", null, null, new ProjectConfig.RateLimits(3L, null), null),
            new ProjectConfig("2", null, null, new ProjectConfig.RateLimits(2L, 100L), null)));
    private RedisQuotaCounter counter;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start(work);
    }

    @AfterAll
    static void stopRedis() throws InterruptedException {
        redis.close();
    }

    @AfterEach
    void closeCounter() {
        if (counter != null) {
            counter.close();
        }
    }

    private ProjectRateLimiter limiter(String uri, String keyPrefix) {
        // timeouts far above the shipped 250 ms and 1 s: these tests pin the windows, and on a loaded machine a
        // command past the shipped timeout fails open (accepted and counted, as
        // acceptsAndCountsWhenRedisCannotBeReached pins), which would let a chunk past its quota here
        counter = new RedisQuotaCounter(new RedisQuotaConfig(uri, Duration.ofSeconds(10), Duration.ofSeconds(10),
                keyPrefix), meters, new TimeBuckets(clock, Duration.ofSeconds(45)));
        return new ProjectRateLimiter(projects, meters, counter);
    }

    @Test
    void theWindowIsTheMinuteOfTheClockNotAMinuteFromTheFirstChunk() {
        ProjectRateLimiter limiter = limiter(redis.uri(), "refuses:");
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
    void aRefusedEnvelopeTakesNothingFromEitherQuota() throws Exception {
        ProjectRateLimiter limiter = limiter(redis.uri(), "nothing:");
        limiter.acquire(2, 1, 60, ChunkCategory.PROFILE_CHUNK);
        // over the bytes quota only: the chunk quota keeps its last chunk
        assertThrows(RateLimitedError.class, () -> limiter.acquire(2, 1, 41, ChunkCategory.PROFILE_CHUNK));
        assertEquals("1", redis.command("GET", "nothing:quota:{2}:" + minuteNumber() + ":chunks"));

        assertDoesNotThrow(() -> limiter.acquire(2, 1, 40, ChunkCategory.PROFILE_CHUNK));
        assertThrows(RateLimitedError.class, () -> limiter.acquire(2, 1, 0, ChunkCategory.PROFILE_CHUNK));
    }

    @Test
    void countersExpireWithTheirWindow() throws Exception {
        clock = new TestClock(Instant.now());
        ProjectRateLimiter limiter = limiter(redis.uri(), "expiry:");
        limiter.acquire(2, 1, 5, ChunkCategory.PROFILE_CHUNK);

        long window = minuteNumber();
        long expiresAt = Long.parseLong(redis.command("EXPIRETIME", "expiry:quota:{2}:" + window + ":bytes")
                .substring(1));
        assertEquals((window + 1) * 60 + 1, expiresAt, "a second past the window's end, in Unix seconds");
        assertEquals("5", redis.command("GET", "expiry:quota:{2}:" + window + ":bytes"));
    }

    @Test
    void enforcesQuotasAgainOnceARestartedRedisIsBack() throws Exception {
        RedisServer restarting = RedisServer.start(work);
        try {
            ProjectRateLimiter limiter = limiter(restarting.uri(), "restart:");
            limiter.acquire(1, 3, 10, ChunkCategory.PROFILE_CHUNK);
            assertThrows(RateLimitedError.class, () -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK));

            restarting.stop();
            assertDoesNotThrow(() -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK));
            assertTrue(meters.counter("relay.quota.backend.errors").count() >= 1);

            // empty after the restart (counters and the cached script gone): the window starts again
            restarting.restart();
            Await.until("the quota enforced again", Duration.ofSeconds(30), () -> {
                try {
                    limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK);
                    return false;
                } catch (RateLimitedError refused) {
                    return true;
                }
            });
            assertEquals("3", restarting.command("GET", "restart:quota:{1}:" + minuteNumber() + ":chunks"));
        } finally {
            restarting.close();
        }
    }

    @Test
    void theRedisClientRunsOnAFewThreadsHoweverManyCallersCheck() throws Exception {
        int before = lettuceThreads();
        ProjectRateLimiter limiter = limiter(redis.uri(), "threads:");
        ExecutorService callers = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> checks = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                long project = 3 + i;
                checks.add(callers.submit(() -> {
                    for (int n = 0; n < 50; n++) {
                        limiter.acquire(project, 1, 10, ChunkCategory.PROFILE_CHUNK);
                    }
                }));
            }
            for (Future<?> check : checks) {
                check.get();
            }
        } finally {
            callers.shutdownNow();
        }
        int added = lettuceThreads() - before;
        // two I/O and two computation threads at most, and the timer of command timeouts
        assertTrue(added >= 1 && added <= 5, added + " Lettuce threads");
    }

    /** The clock's minute as the counters' keys name it: minutes since the epoch. */
    private long minuteNumber() {
        return Math.floorDiv(clock.instant().getEpochSecond(), 60);
    }

    private static int lettuceThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().toLowerCase(java.util.Locale.ROOT).contains("lettuce")).count();
    }

    @Test
    void acceptsAndCountsWhenRedisCannotBeReached() throws Exception {
        RedisServer gone = RedisServer.start(work);
        gone.stop();
        ProjectRateLimiter limiter = limiter(gone.uri(), "gone:");

        for (int i = 0; i < 10; i++) {
            assertDoesNotThrow(() -> limiter.acquire(1, 1, 10, ChunkCategory.PROFILE_CHUNK));
        }

        assertEquals(10, meters.counter("relay.quota.backend.errors").count());
        assertTrue(meters.find("relay.chunks.rate_limited").counters().isEmpty());
    }
}
