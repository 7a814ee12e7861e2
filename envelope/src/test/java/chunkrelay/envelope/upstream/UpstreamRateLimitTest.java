package chunkrelay.envelope.upstream;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.EmbeddedS3Server;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An upstream 429 is remembered per key and applied to later envelopes: what it limits is refused with 429 and
 * the limit, reported upstream as rate limited, and never stops the relay from archiving profile chunks.
 */
class UpstreamRateLimitTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String LIMIT = "60:error;default:key:quota_exceeded";

    @Test
    void aCachedUpstreamLimitRefusesErrorsKeepsArchivingChunksAndIsReportedUpstream() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory(); TestUpstream upstream = new TestUpstream()) {
            AtomicBoolean limited = new AtomicBoolean();
            upstream.answer(request -> request.items().stream().anyMatch(i -> i.type().equals("event"))
                    && limited.compareAndSet(false, true)
                    ? new TestUpstream.Answer(429, Map.of("X-Sentry-Rate-Limits", LIMIT, "Retry-After", "60"))
                    : TestUpstream.Answer.ok());
            try (RunningRelay relay = RunningRelay.start(s3, Map.of("relay.upstream.url", upstream.uri().toString(),
                    "relay.upstream.client-report-interval", "200ms"))) {
                RelayClient client = relay.client();
                byte[] error = Envelopes.withItem(Envelopes.header(), "{\"type\":\"event\"}",
                        "{\"message\":\"boom\"}".getBytes(StandardCharsets.UTF_8));

                assertEquals(200, client.post(PATH, error, "X-Sentry-Auth", AUTH).status());
                Await.until("the upstream to see the first error", WAIT, limited::get);
                Await.until("a request upstream", WAIT, () -> upstream.received().size() >= 1);
                // the upstream's 429 is answered before the relay has read and recorded it
                MeterRegistry meters = relay.bean(MeterRegistry.class);
                Await.until("the relay to record the upstream's 429", WAIT, () -> meters.counter(
                        "relay.upstream.envelopes", "outcome", "upstream_rate_limited").count() >= 1);

                RelayClient.Answer refused = client.post(PATH, error, "X-Sentry-Auth", AUTH);
                assertEquals(429, refused.status(), refused.raw());
                assertTrue(refused.header("X-Sentry-Rate-Limits").matches("\\d+:error;default:key:quota_exceeded")
                        || refused.header("X-Sentry-Rate-Limits").matches("\\d+:default;error:key:quota_exceeded"),
                        refused.header("X-Sentry-Rate-Limits"));
                assertTrue(Integer.parseInt(refused.header("Retry-After")) > 0);

                byte[] chunk = Envelopes.withItem(Envelopes.header(), "{\"type\":\"profile_chunk\"}",
                        Envelopes.chunkPayload());
                assertEquals(200, client.post(PATH, chunk, "X-Sentry-Auth", AUTH).status());
                assertEquals(1, relay.archivedChunks().size(), "the chunk was archived");

                Await.until(() -> "a client report with the rate-limited error upstream; "
                                + upstream.received().size() + " requests", WAIT,
                        () -> upstream.accepted().stream().flatMap(r -> r.items().stream())
                                .anyMatch(item -> item.type().equals("client_report")
                                        && new String(item.payload(), StandardCharsets.UTF_8).contains(
                                                "\"rate_limited_events\":[{\"reason\":\"quota_exceeded\","
                                                        + "\"category\":\"error\",\"quantity\":1}]")));
            }
            assertEquals(1, upstream.received().stream().filter(r -> r.items().stream()
                    .anyMatch(i -> i.type().equals("event"))).count(), "the limited error went upstream");
        }
    }
}
