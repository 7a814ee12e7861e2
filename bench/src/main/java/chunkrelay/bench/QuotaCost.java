package chunkrelay.bench;

import chunkrelay.envelope.auth.ChunkCategory;
import chunkrelay.envelope.auth.ProjectRateLimiter;
import chunkrelay.envelope.testing.RedisServer;
import io.micronaut.context.ApplicationContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a project quota check costs per chunk: the relay's {@link ProjectRateLimiter} (as wired by the relay's own
 * configuration) counting in this process against counting in a real Redis on loopback, both taken in turns for
 * several rounds on one thread, each check one chunk of a project with a chunk and a byte quota that it never
 * reaches. Wall time is what an envelope waits; the caller's CPU time leaves out Redis and Lettuce's I/O thread.
 */
final class QuotaCost {
    static final int CHECKS_PER_ROUND = 20_000;
    static final int ROUNDS = 6;

    /** Medians over the rounds after the first (warm-up), nanoseconds per check. */
    record Result(double localWallNanos, double localCpuNanos, double redisWallNanos, double redisCpuNanos) {
        double wallRatio() {
            return redisWallNanos / localWallNanos;
        }
    }

    private QuotaCost() {
    }

    static Result measure() throws Exception {
        Path work = Files.createTempDirectory("chunk-relay-quota-bench-");
        try (RedisServer redis = RedisServer.start(work);
             ApplicationContext local = ApplicationContext.run(quotas(Map.of()));
             ApplicationContext shared = ApplicationContext.run(quotas(Map.of("relay.redis.uri", redis.uri())))) {
            ProjectRateLimiter inProcess = local.getBean(ProjectRateLimiter.class);
            ProjectRateLimiter inRedis = shared.getBean(ProjectRateLimiter.class);
            List<double[]> localRounds = new ArrayList<>();
            List<double[]> redisRounds = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                double[] l = round(inProcess);
                double[] r = round(inRedis);
                if (round > 0) {
                    localRounds.add(l);
                    redisRounds.add(r);
                }
            }
            return new Result(median(localRounds, 0), median(localRounds, 1), median(redisRounds, 0),
                    median(redisRounds, 1));
        } finally {
            BenchmarkSuite.deleteTree(work);
        }
    }

    private static Map<String, Object> quotas(Map<String, Object> extra) {
        Map<String, Object> properties = new HashMap<>(extra);
        properties.put("relay.projects.1.rate-limits.chunks-per-minute", Long.toString(Long.MAX_VALUE / 2));
        properties.put("relay.projects.1.rate-limits.bytes-per-minute", Long.toString(Long.MAX_VALUE / 2));
        return properties;
    }

    /** Wall and CPU nanoseconds per check over one round. */
    private static double[] round(ProjectRateLimiter limiter) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < CHECKS_PER_ROUND; i++) {
            limiter.acquire(1, 1, 300_000, ChunkCategory.PROFILE_CHUNK);
        }
        long wall = System.nanoTime() - start;
        return new double[] {(double) wall / CHECKS_PER_ROUND,
                (double) (threads.getCurrentThreadCpuTime() - cpu) / CHECKS_PER_ROUND};
    }

    private static double median(List<double[]> rounds, int column) {
        double[] values = rounds.stream().mapToDouble(r -> r[column]).sorted().toArray();
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }
}
