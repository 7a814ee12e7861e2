package chunkrelay.envelope.auth;

import chunkrelay.envelope.testing.CountingChunkPipeline;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.TimeBuckets;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Per-project quotas from {@code relay.projects.<id>.rate-limits}: the envelope that would pass a quota gets 429
 * with {@code Retry-After} and Relay's {@code X-Sentry-Rate-Limits}, naming the category of the chunk's platform;
 * other projects go on unaffected. The relay's clock stands still at the start of a minute, so that no minute ends
 * midway through a test and opens a new window.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "test.clock", value = "manual")
@Property(name = "relay.projects.7.rate-limits.chunks-per-minute", value = "2")
@Property(name = "relay.projects.9.rate-limits.bytes-per-minute", value = "1000")
@Property(name = "relay.projects.10.rate-limits.chunks-per-minute", value = "1")
class RateLimitTest {
    @Inject
    EmbeddedServer server;

    @Inject
    CountingChunkPipeline pipeline;

    @Inject
    Clock clock;

    @BeforeEach
    void startOfTheNextMinute() {
        Instant now = clock.instant();
        ((TestClock) clock).advance(Duration.between(now, TimeBuckets.minuteOf(now).plus(Duration.ofSeconds(61))));
    }

    @Test
    void refusesTheChunkOverTheProjectQuotaWith429AndRelaysRateLimitHeaderWhileOtherProjectsGoOn()
            throws Exception {
        byte[] envelope = nodeChunkEnvelope();
        PrometheusScrape before = PrometheusScrape.of(server.getURI());
        long accepted = pipeline.accepted();

        assertEquals(200, post(7, envelope).status());
        assertEquals(200, post(7, envelope).status());
        RelayClient.Answer limited = post(7, envelope);

        assertEquals(429, limited.status());
        assertEquals("event rejected due to rate limit", limited.body().path("detail").asText());
        RateLimit limit = RateLimit.parse(limited);
        assertEquals("profile_chunk", limit.categories());
        assertEquals("project", limit.scope());
        assertEquals("project_quota", limit.reasonCode());
        assertEquals(59, limit.seconds(), "the seconds left of the relay's minute, a second into it");
        assertEquals(2, pipeline.accepted() - accepted);

        // another project, and envelopes of the limited project without chunks, are not limited
        assertEquals(200, post(8, envelope).status());
        assertEquals(200, post(8, envelope).status());
        assertEquals(200, post(8, envelope).status());
        assertEquals(200, post(7, Envelopes.bytes(Envelopes.header() + "\n{\"type\":\"session\"}\n{}")).status());
        assertEquals(429, post(7, envelope).status());
        assertEquals(5, pipeline.accepted() - accepted);

        PrometheusScrape after = PrometheusScrape.of(server.getURI());
        assertEquals(2, after.value("relay_chunks_rate_limited_total", "category", "profile_chunk")
                - before.valueOrZeroBeforeFirstUse("relay_chunks_rate_limited_total", "category", "profile_chunk"));
        assertEquals(2, after.value("relay_envelopes_total", "status", "429")
                - before.valueOrZeroBeforeFirstUse("relay_envelopes_total", "status", "429"));
    }

    @Test
    void namesProfileChunkUiForUiPlatformsFromTheItemHeaderOrElseThePayload() throws Exception {
        byte[] cocoa = Fixtures.bytes("relay/sample_v2_valid.json");
        byte[] withHeaderPlatform = Envelopes.withItem(Envelopes.header(),
                "{\"type\":\"profile_chunk\",\"platform\":\"cocoa\",\"length\":" + cocoa.length + "}", cocoa);
        byte[] withPayloadPlatformOnly = Envelopes.withItem(Envelopes.header(),
                "{\"type\":\"profile_chunk\",\"length\":" + cocoa.length + "}", cocoa);

        assertEquals(200, post(10, withHeaderPlatform).status());
        RelayClient.Answer byHeader = post(10, withHeaderPlatform);
        RelayClient.Answer byPayload = post(10, withPayloadPlatformOnly);

        assertEquals(429, byHeader.status());
        assertEquals("profile_chunk_ui", RateLimit.parse(byHeader).categories());
        assertEquals(429, byPayload.status());
        assertEquals("profile_chunk_ui", RateLimit.parse(byPayload).categories());
    }

    @Test
    void limitsDecodedChunkBytesPerMinute() throws Exception {
        byte[] payload = ("{\"platform\":\"python\",\"padding\":\"" + "x".repeat(580) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] envelope = Envelopes.withItem(Envelopes.header(),
                "{\"type\":\"profile_chunk\",\"length\":" + payload.length + "}", payload);

        assertEquals(200, post(9, envelope).status());
        RelayClient.Answer limited = post(9, envelope);

        assertEquals(429, limited.status());
        assertEquals("profile_chunk", RateLimit.parse(limited).categories());
    }

    /** One entry of X-Sentry-Rate-Limits, checked against Retry-After. */
    private record RateLimit(long seconds, String categories, String scope, String reasonCode) {
        static RateLimit parse(RelayClient.Answer response) {
            String header = response.headers().firstValue("X-Sentry-Rate-Limits").orElseThrow();
            String[] entries = header.split(",\\s*");
            assertEquals(1, entries.length, header);
            String[] parts = entries[0].split(":");
            assertEquals(4, parts.length, header);
            long seconds = Long.parseLong(parts[0]);
            assertEquals(seconds, Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow()),
                    "Retry-After and X-Sentry-Rate-Limits disagree");
            return new RateLimit(seconds, parts[1], parts[2], parts[3]);
        }
    }

    private RelayClient.Answer post(long project, byte[] envelope) {
        return new RelayClient(server.getURI()).post("/api/" + project + "/envelope/", envelope, "X-Sentry-Auth", AUTH);
    }

    private static byte[] nodeChunkEnvelope() {
        RecordedChunk node = Fixtures.sdkChunks().stream()
                .filter(c -> c.itemHeader().path("platform").asText().equals("node")).findFirst().orElseThrow();
        return Envelopes.withItem(Envelopes.header(), node.itemHeader().toString(), node.payload());
    }
}
