package chunkrelay.envelope.ingest;

import chunkrelay.envelope.auth.ProjectRateLimiter;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RetryLater;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.links.SpanIndex;
import chunkrelay.envelope.links.SpanIntake;
import chunkrelay.envelope.links.SpanLog;
import chunkrelay.envelope.pipeline.ChunkPipeline;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.upstream.UpstreamConfig;
import chunkrelay.envelope.upstream.UpstreamForwarder;
import chunkrelay.storage.TimeBuckets;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import static chunkrelay.envelope.testing.Envelopes.KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Thousands of mutated and truncated SDK envelopes (fixed seed) end in an accepted envelope or a clean 4xx:
 * never another exception, never a 5xx, never a hang.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class EnvelopeFuzzTest {
    private static final long SEED = 20261122L;
    /** Relay's per-item-type limits at their defaults (relay-config's {@code Limits}). */
    private static final ItemLimits RELAY_ITEM_LIMITS = new ItemLimits(1 << 20, 200L << 20, 30, 200L << 20,
            10 << 20, 10 << 20, 100, 100 << 10, 100, 100 << 10, 1 << 20, 1 << 20, 2 << 20, 1 << 20, 10 << 20, 25,
            12 << 20);

    @Inject
    EmbeddedServer server;

    private static int statusOf(Runnable ingest) {
        try {
            ingest.run();
            return 200;
        } catch (RelayError e) {
            return e.status().getCode();
        }
    }

    /** Relay's size limits as given, the default request work. */
    static RelayLimits limits(long maxEnvelopeBytes, long maxChunkBytes, int maxHeaderBytes,
                              long maxBufferedChunkBytes) {
        return new RelayLimits(maxEnvelopeBytes, maxChunkBytes, maxHeaderBytes, maxBufferedChunkBytes, 0, 64,
                Duration.ofSeconds(30), 2.0);
    }

    @Test
    void everyMutatedEnvelopeEndsInAcceptanceOrAClean4xx() {
        AtomicInteger chunks = new AtomicInteger();
        ChunkPipeline pipeline = items -> chunks.addAndGet(items.size());
        RelayLimits defaultLimits = limits(200L << 20, 50L << 20, 1 << 20, 256L << 20);
        ProjectRegistry projects = new ProjectRegistry(List.of());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ProjectRateLimiter unlimited = new ProjectRateLimiter(projects, meters,
                new TimeBuckets(Clock.systemUTC(), Duration.ofSeconds(45)));
        UpstreamForwarder noUpstream = new UpstreamForwarder(new UpstreamConfig("", false, 1, 1, Duration.ofHours(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1), 1, Duration.ofMinutes(1), 1), null, null, meters,
                Clock.systemUTC(), new BackgroundWork(Clock.systemUTC(), Duration.ofSeconds(30)));
        // spans are read and indexed as in the relay; with the span log off nothing reaches a bucket
        LinksConfig links = new LinksConfig(Duration.ZERO, 100_000, Duration.ofMinutes(10), 0, 0,
                Duration.ofMinutes(1), 1, false);
        SpanIntake spans = new SpanIntake(new SpanIndex(links, meters),
                new SpanLog(null, links, meters, Clock.systemUTC()), links, meters, List.of());
        RetryLater retryLater = new RetryLater(Duration.ofSeconds(5));
        EnvelopeIngest defaults = new EnvelopeIngest(defaultLimits, RELAY_ITEM_LIMITS, projects, pipeline, meters,
                new ChunkMemoryBudget(defaultLimits, retryLater), unlimited, noUpstream, spans, retryLater);
        RelayLimits smallLimits = limits(1 << 20, 64 << 10, 4 << 10, 1 << 20);
        EnvelopeIngest small = new EnvelopeIngest(smallLimits, RELAY_ITEM_LIMITS, projects, pipeline, meters,
                new ChunkMemoryBudget(smallLimits, retryLater), unlimited, noUpstream, spans, retryLater);
        ContentDecoding decoding = new ContentDecoding(smallLimits, meters);
        EnvelopeMutator mutator = new EnvelopeMutator(SEED);
        Random random = mutator.random();
        Map<Integer, Integer> statuses = new TreeMap<>();
        int cases = 4000;
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            for (int i = 0; i < cases; i++) {
                byte[] body = mutator.next();
                boolean requestAuth = random.nextInt(4) != 0;
                EnvelopeIngest.Sender sender = new EnvelopeIngest.Sender(1, requestAuth ? KEY : null, null, Instant.now());
                int status;
                long start = System.nanoTime();
                try {
                    if (i % 10 == 0) {
                        byte[] gz = ContentEncodingTest.gzip(body);
                        byte[] wire = random.nextBoolean() ? gz : Arrays.copyOf(gz, random.nextInt(gz.length + 1));
                        status = statusOf(() -> small.ingest(sender, decoding.decode(ContentDecoding.Encoding.GZIP,
                                new ByteArrayInputStream(wire))));
                    } else {
                        EnvelopeIngest ingest = i % 3 == 0 ? small : defaults;
                        status = statusOf(() -> ingest.ingest(sender, new ByteArrayInputStream(body)));
                    }
                } catch (RuntimeException | IOException e) {
                    throw new AssertionError("case " + i + " (seed " + SEED + ") threw " + e, e);
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                if (status != 200 && (status < 400 || status > 499)) {
                    fail("case " + i + " (seed " + SEED + ") answered " + status);
                }
                assertTrue(millis < 5_000, "case " + i + " took " + millis + " ms");
                statuses.merge(status, 1, Integer::sum);
            }
        });
        System.out.println("fuzzed envelopes by status: " + statuses + ", chunks handed over: " + chunks.get());
        assertEquals(cases, statuses.values().stream().mapToInt(Integer::intValue).sum());
        assertTrue(statuses.getOrDefault(200, 0) > 0 && statuses.getOrDefault(400, 0) > 0,
                "the mutations must produce both accepted and refused envelopes: " + statuses);
    }

    @Test
    void everyMutatedRequestOverHttpEndsIn200OrA4xx() {
        RelayClient client = new RelayClient(server.getURI());
        EnvelopeMutator mutator = new EnvelopeMutator(SEED + 1);
        Random random = mutator.random();
        String[] encodings = {null, null, "gzip", "gzip", "identity", "utf-8", "br", "zstd", "deflate", "bogus"};
        Map<Integer, Integer> statuses = new TreeMap<>();
        assertTimeoutPreemptively(Duration.ofSeconds(180), () -> {
            for (int i = 0; i < 300; i++) {
                byte[] envelope = mutator.next();
                String encoding = encodings[random.nextInt(encodings.length)];
                byte[] body = encoding != null && encoding.equals("gzip") && random.nextInt(4) != 0
                        ? ContentEncodingTest.gzip(envelope) : envelope;
                String path = switch (random.nextInt(6)) {
                    case 0 -> "/api/1/envelope/";
                    case 1 -> "/api/x1/envelope/";
                    case 2 -> "/api/1/envelope/?sentry_key=" + KEY + "&sentry_version=" + random.nextInt(10);
                    default -> "/api/1/envelope/?sentry_key=" + KEY;
                };
                List<String> headers = new java.util.ArrayList<>();
                if (encoding != null) {
                    headers.addAll(List.of("Content-Encoding", encoding));
                }
                if (random.nextInt(8) == 0) {
                    headers.addAll(List.of("X-Sentry-Auth", "Sentry sentry_key=" + KEY));
                }
                RelayClient.Answer answer = client.post(path, body, headers.toArray(String[]::new));
                int status = answer.status();
                if (status != 200 && (status < 400 || status > 499)) {
                    fail("request " + i + " (seed " + (SEED + 1) + ") answered " + status + ": " + answer.raw());
                }
                if (status != 200) {
                    assertTrue(answer.body().hasNonNull("detail"), "request " + i + ": " + answer.raw());
                }
                statuses.merge(status, 1, Integer::sum);
            }
        });
        System.out.println("fuzzed requests by status: " + statuses);
        assertTrue(statuses.getOrDefault(200, 0) > 0, statuses.toString());
    }
}
