package chunkrelay.envelope.auth;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RedisServer;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 18: two relays on one bucket and one Redis enforce one project quota between them, and a Redis that goes
 * away makes both accept rather than refuse.
 */
@Tag("external")
class SharedQuotaTest {
    private static final int QUOTA = 4;
    private static final int SENT = 10;

    @TempDir
    Path work;

    @Test
    void twoRelaysSharingRedisAcceptTheProjectQuotaOnceBetweenThemAndFailOpenWhenRedisStops() throws Exception {
        try (RedisServer redis = RedisServer.start(work);
             EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay a = RunningRelay.start(s3, relayProperties(redis));
             RunningRelay b = RunningRelay.start(s3, relayProperties(redis))) {
            byte[] envelope = nodeChunkEnvelope();
            startOfTheSameMinute(a.clock(), b.clock());

            List<RelayClient.Answer> answers = new ArrayList<>();
            for (int i = 0; i < SENT; i++) {
                answers.add((i % 2 == 0 ? a : b).client().post("/api/5/envelope/", envelope, "X-Sentry-Auth", AUTH));
            }

            assertEquals(QUOTA, answers.stream().filter(answer -> answer.status() == 200).count(),
                    "statuses " + answers.stream().map(RelayClient.Answer::status).toList());
            List<RelayClient.Answer> limited = answers.stream().filter(answer -> answer.status() == 429).toList();
            assertEquals(SENT - QUOTA, limited.size());
            for (RelayClient.Answer refused : limited) {
                String header = refused.header("X-Sentry-Rate-Limits");
                assertTrue(header != null && header.matches("\\d+:profile_chunk:project:project_quota"), header);
                long seconds = Long.parseLong(header.split(":")[0]);
                assertTrue(seconds >= 1 && seconds <= 60, header);
                assertEquals(Long.toString(seconds), refused.header("Retry-After"));
            }
            // both relays refused some: neither counted a quota of its own
            assertTrue(rateLimited(a) > 0 && rateLimited(b) > 0,
                    "refusals on a " + rateLimited(a) + ", on b " + rateLimited(b));
            assertEquals(0, backendErrors(a) + backendErrors(b));

            redis.stop();
            for (int i = 0; i < 6; i++) {
                RelayClient.Answer answer = (i % 2 == 0 ? a : b).client()
                        .post("/api/5/envelope/", envelope, "X-Sentry-Auth", AUTH);
                assertEquals(200, answer.status(), answer.raw());
            }
            assertEquals(3, backendErrors(a));
            assertEquals(3, backendErrors(b));
        }
    }

    private static Map<String, Object> relayProperties(RedisServer redis) {
        return Map.of("relay.redis.uri", redis.uri(), "test.clock", "manual",
                "relay.projects.5.rate-limits.chunks-per-minute", Integer.toString(QUOTA));
    }

    private static double rateLimited(RunningRelay relay) {
        return PrometheusScrape.of(relay.uri())
                .valueOrZeroBeforeFirstUse("relay_chunks_rate_limited_total", "category", "profile_chunk");
    }

    private static double backendErrors(RunningRelay relay) {
        return PrometheusScrape.of(relay.uri()).value("relay_quota_backend_errors_total");
    }

    /**
     * Windows are whole minutes of the relays' clocks: both are set a second into the same minute, ahead of both,
     * and stay there, so that no new window opens midway.
     */
    private static void startOfTheSameMinute(TestClock... clocks) {
        Instant latest = Arrays.stream(clocks).map(TestClock::instant).max(Instant::compareTo).orElseThrow();
        Instant target = latest.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1)).plusSeconds(1);
        for (TestClock clock : clocks) {
            clock.advance(Duration.between(clock.instant(), target));
        }
    }

    private static byte[] nodeChunkEnvelope() {
        RecordedChunk node = Fixtures.sdkChunks().stream()
                .filter(c -> c.itemHeader().path("platform").asText().equals("node")).findFirst().orElseThrow();
        return Envelopes.withItem(Envelopes.header(), node.itemHeader().toString(), node.payload());
    }
}
