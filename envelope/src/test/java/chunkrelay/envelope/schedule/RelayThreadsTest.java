package chunkrelay.envelope.schedule;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.RedisServer;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay's threads, as docs/how-it-works.md lists them (background work): the relay with every client it can
 * have (upstream Sentry, OTLP collector, Redis, a bucket over HTTP) on the real server. At rest after start-up each
 * thread is one the relay names and stops, or one a library names for a client the relay closes in its stop order;
 * after work the lazily started ones stay within their counts; after stop none is left.
 */
@Tag("external")
class RelayThreadsTest {
    /** Threads the relay names: the name with its numbers as N, and how many at most. */
    private static final Map<String, Integer> OURS = Map.ofEntries(
            Map.entry("ingest-worker-N", 2), Map.entry("ingest-read-timeouts", 1),
            Map.entry("upstream-sender-N", 2), Map.entry("upstream-spool", 1), Map.entry("upstream-http-N", 2),
            Map.entry("upstream-pass-through-N", 16),
            Map.entry("chunk-derivation", 1), Map.entry("otlp-forward-N", 2), Map.entry("otlp-http-N", 2),
            Map.entry("retention-sweep", 1), Map.entry("rollup-builder", 1), Map.entry("health", 1),
            Map.entry("health-silence", 1), Map.entry("recovery-pass", 1), Map.entry("view-chunk-reader-N",
                    Runtime.getRuntime().availableProcessors()));
    /** What the relay runs at rest right after start-up: the periodic jobs, the senders and the hand-out. */
    private static final Map<String, Integer> AT_START = Map.of("upstream-sender-N", 2, "upstream-spool", 1,
            "chunk-derivation", 1, "otlp-forward-N", 2, "retention-sweep", 1, "rollup-builder", 1, "health", 1,
            "health-silence", 1, "recovery-pass", 1);
    /**
     * Threads the libraries name, for clients and servers the relay closes in its stop order: the JDK HTTP clients'
     * selectors (one per client: upstream and OTLP), Lettuce's event loops, the AWS SDK's timeouts and its
     * connection pools' reaper, Micronaut's server (Netty) and its executors.
     */
    private static final List<Pattern> LIBRARIES = List.of(Pattern.compile("HttpClient-N-SelectorManager"),
            Pattern.compile("lettuce-.*"), Pattern.compile("sdk-ScheduledExecutor-N-N"),
            Pattern.compile("idle-connection-reaper"), Pattern.compile("default-eventLoopGroup-N-N"),
            Pattern.compile("globalEventExecutor-N-N"), Pattern.compile("scheduled-executor-thread-N"),
            Pattern.compile("io-executor-thread-N"));
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);

    @TempDir
    Path work;

    @Test
    void everyThreadAfterStartUpIsNamedAndOwnedAndNoneIsLeftAfterStop() throws Exception {
        try (RedisServer redis = RedisServer.start(work);
             EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             TestUpstream upstream = new TestUpstream();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            Set<Thread> before = Thread.getAllStackTraces().keySet();
            startWorkAndStop(before, redis, upstream, receiver, s3);
            // The JDK's HTTP client (Java 17) has no close: its selector thread ends once the client is unreachable,
            // that is once the closed context dropped it and the collector ran. Netty's loops end after their quiet
            // period. Both are waited for, not left out.
            Supplier<Map<String, Integer>> left = () -> {
                System.gc();
                Map<String, Integer> threads = threadsSince(before);
                threads.keySet().removeIf(name -> !OURS.containsKey(name) && !fromLibrary(name));
                return threads;
            };
            Await.until(() -> "no thread of the relay left after stop: " + left.get(), STOP_WAIT,
                    () -> left.get().isEmpty());
        }
    }

    /** Starts the relay, looks at its threads at rest and after work, and stops it (the context closed, dropped). */
    private static void startWorkAndStop(Set<Thread> before, RedisServer redis, TestUpstream upstream,
                                         OtlpReceiver receiver, EmbeddedS3Server s3) throws InterruptedException {
        try (RunningRelay relay = RunningRelay.start(s3, Map.of("relay.redis.uri", redis.uri(),
                "relay.upstream.url", upstream.uri().toString(), "relay.upstream.forward-profile-chunks", "true",
                "relay.otlp.endpoint", receiver.endpoint(), "relay.limits.workers", "2"))) {
            Map<String, Integer> started = threadsSince(before);
            assertEquals(AT_START, ours(started), "the relay's threads at rest after start-up");
            assertEquals(Map.of(), unknown(started), "threads at start-up that nothing names as the relay's");
            assertEquals(2, started.get("HttpClient-N-SelectorManager"), "one HTTP client per destination");

            assertEquals(200, relay.client().replay(Fixtures.sdkRequests().stream()
                    .filter(request -> request.name().startsWith("node-")).findFirst().orElseThrow()).status());
            assertEquals(200, relay.client().post("/api/1/store/", Envelopes.bytes("{}"), "X-Sentry-Auth", AUTH)
                    .status());
            Await.until("the chunk and the event upstream", STOP_WAIT, () -> upstream.received().size() >= 2);
            Await.until("the chunk's OTLP form at the collector", STOP_WAIT, () -> !receiver.received().isEmpty());
            ours(threadsSince(before)).forEach((name, count) -> assertTrue(count <= OURS.get(name),
                    "after work " + name + ": " + count));
        }
    }

    /** The threads started since {@code before}, by name with numbers as N. */
    private static Map<String, Integer> threadsSince(Set<Thread> before) {
        Map<String, Integer> names = new TreeMap<>();
        Thread.getAllStackTraces().keySet().stream().filter(thread -> !before.contains(thread) && thread.isAlive())
                .forEach(thread -> names.merge(thread.getName().replaceAll("\\d+", "N"), 1, Integer::sum));
        return names;
    }

    private static Map<String, Integer> ours(Map<String, Integer> threads) {
        Map<String, Integer> ours = new TreeMap<>(threads);
        ours.keySet().retainAll(OURS.keySet());
        return ours;
    }

    /**
     * Threads neither the relay nor a library of its names. The JDK's common pool is the JVM's, shared by
     * everything in it: the relay gives it no work (its caches do their upkeep on the caller), but Micronaut's
     * start-up may wake a worker, which the JVM ends after a minute idle.
     */
    private static Map<String, Integer> unknown(Map<String, Integer> threads) {
        Map<String, Integer> unknown = new TreeMap<>(threads);
        unknown.keySet().removeIf(name -> OURS.containsKey(name) || fromLibrary(name)
                || name.startsWith("ForkJoinPool.commonPool-worker-"));
        return unknown;
    }

    private static boolean fromLibrary(String name) {
        return LIBRARIES.stream().anyMatch(pattern -> pattern.matcher(name).matches());
    }
}
