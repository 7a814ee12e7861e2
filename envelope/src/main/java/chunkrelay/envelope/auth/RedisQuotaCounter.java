package chunkrelay.envelope.auth;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.TimeBuckets;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Quota windows in Redis, shared by every relay that uses the same Redis: the minutes of the relay's clock (the quota
 * minute of {@link TimeBuckets}, as {@link LocalQuotaCounter} counts it), one counter key per project, quota and
 * minute that expires with its minute. A Lua script
 * checks every quota of the project and takes from all of them only when all can take it, in one atomic step (the
 * approach of Sentry Relay's Redis rate limiter), so concurrent replicas cannot overrun a quota between check and
 * increment.
 *
 * <p>Quotas guard the relay's users against a noisy project; refusing data because the quota store is down
 * would be worse. So any Redis failure (down, timeout, refused command) takes nothing and lets the chunks through:
 * it is counted in {@link RelayMeter#QUOTA_BACKEND_ERRORS} and logged at most once a minute. Commands fail fast
 * while the connection is down (Lettuce reconnects in the background), and every command is bounded by
 * {@code relay.redis.command-timeout}, so a dead Redis costs an envelope at most that.
 */
final class RedisQuotaCounter implements QuotaCounter {
    private static final Logger LOG = LoggerFactory.getLogger(RedisQuotaCounter.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long CONNECT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * KEYS: one counter per quota. ARGV[1]: when the counters expire (Unix seconds); then per key its limit and
     * the quantity to take. Returns 1 when taken, 0 when any quota could not take its quantity (nothing taken).
     */
    static final String SCRIPT = """
            for i = 1, #KEYS do
              local used = tonumber(redis.call('GET', KEYS[i]) or '0')
              if used + tonumber(ARGV[2 * i + 1]) > tonumber(ARGV[2 * i]) then
                return 0
              end
            end
            for i = 1, #KEYS do
              redis.call('INCRBY', KEYS[i], ARGV[2 * i + 1])
              redis.call('EXPIREAT', KEYS[i], ARGV[1])
            end
            return 1
            """;
    private static final String SCRIPT_SHA = sha1(SCRIPT);

    private final ClientResources resources;
    private final RedisClient client;
    private final String keyPrefix;
    /** Host and port, for logs (the URI may hold a password). */
    private final String target;
    private final TimeBuckets buckets;
    private final Counter backendErrors;
    private final AtomicLong nextLogNanos = new AtomicLong(System.nanoTime());
    private final Object connecting = new Object();
    private volatile StatefulRedisConnection<String, String> connection;
    private long nextConnectNanos = System.nanoTime();

    RedisQuotaCounter(RedisQuotaConfig config, MeterRegistry meters, TimeBuckets buckets) {
        this.keyPrefix = config.keyPrefix();
        this.buckets = buckets;
        this.backendErrors = RelayMeter.QUOTA_BACKEND_ERRORS.counter(meters);
        // Lettuce's smallest pools (two I/O, two computation threads, started as needed): quota checks are tiny
        resources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
        RedisURI uri = RedisURI.create(config.uri());
        uri.setTimeout(config.commandTimeout());
        target = uri.getHost() + ":" + uri.getPort();
        client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(config.connectTimeout()).build())
                .timeoutOptions(TimeoutOptions.enabled(config.commandTimeout()))
                .build());
    }

    @Override
    public long tryTake(long projectId, int chunks, long bytes, ProjectConfig.RateLimits limits) {
        long now = buckets.now();
        long minute = TimeBuckets.minuteOf(now);
        long minuteEnd = minute + TimeBuckets.MINUTE_NANOS;
        // the hash tag keeps a project's counters in one slot of a Redis Cluster, as a script needs; the minute is
        // named by its number since the epoch
        String stem = keyPrefix + "quota:{" + projectId + "}:" + minute / TimeBuckets.MINUTE_NANOS + ":";
        List<String> keys = new ArrayList<>(2);
        List<String> args = new ArrayList<>(5);
        // a second past the minute's end, so that a counter never expires while its minute is open on a relay
        // whose clock lags a little behind Redis's
        args.add(Long.toString(minuteEnd / TimeBuckets.SECOND_NANOS + 1));
        if (limits.chunksPerMinute() != null) {
            keys.add(stem + "chunks");
            args.add(Long.toString(limits.chunksPerMinute()));
            args.add(Integer.toString(chunks));
        }
        if (limits.bytesPerMinute() != null) {
            keys.add(stem + "bytes");
            args.add(Long.toString(limits.bytesPerMinute()));
            args.add(Long.toString(bytes));
        }
        try {
            long taken = run(connection().sync(), keys.toArray(String[]::new), args.toArray(String[]::new));
            return taken == 1 ? 0 : Math.max(1, minuteEnd - now);
        } catch (RedisException e) {
            backendError(e);
            return 0;
        }
    }

    /** Runs the script by its digest, loading it once Redis says it does not know it (first use, or a restart). */
    private static long run(RedisCommands<String, String> redis, String[] keys, String[] args) {
        try {
            return redis.<Long>evalsha(SCRIPT_SHA, ScriptOutputType.INTEGER, keys, args);
        } catch (RedisNoScriptException unknown) {
            return redis.<Long>eval(SCRIPT, ScriptOutputType.INTEGER, keys, args);
        }
    }

    /**
     * The connection, connecting on first use. A failed attempt is repeated at most once a second, and calls in
     * between fail at once, so that an unreachable Redis does not hold every envelope for the connect timeout.
     */
    private StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> current = connection;
        if (current != null) {
            return current;
        }
        synchronized (connecting) {
            if (connection != null) {
                return connection;
            }
            if (System.nanoTime() - nextConnectNanos < 0) {
                throw new RedisException("not connected; the last attempt failed less than a second ago");
            }
            try {
                connection = client.connect(StringCodec.UTF8);
                LOG.info("project quotas are counted in Redis at {}", target);
                return connection;
            } catch (RedisException e) {
                nextConnectNanos = System.nanoTime() + CONNECT_RETRY_NANOS;
                throw e;
            }
        }
    }

    private void backendError(RedisException e) {
        backendErrors.increment();
        long now = System.nanoTime();
        long next = nextLogNanos.get();
        if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + LOG_INTERVAL_NANOS)) {
            LOG.warn("project quotas are not enforced: Redis did not answer ({}); chunks are accepted unchecked"
                    + " until it does (logged at most once a minute, counted in relay_quota_backend_errors_total)",
                    e.getMessage());
        }
    }

    /** Closes the connection and ends Lettuce's threads, so that a stopped relay leaves none behind. */
    void close() {
        StatefulRedisConnection<String, String> current = connection;
        if (current != null) {
            current.close();
        }
        client.shutdown();
        try {
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("the Redis client's threads did not stop: {}", e.toString());
        }
    }

    private static String sha1(String script) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-1", e);
        }
    }
}
