package chunkrelay.envelope.recovery;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41: an answer of the OTLP endpoint that a retry cannot change is a refusal for good. It is counted once
 * with its reason, the chunk gets a refusal marker with the endpoint's message (shown in the page's chunk table),
 * and neither the forwarder, the recovery pass nor a replay sends it again unless the replay is asked to.
 */
class EndpointRefusalTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration GRACE = Duration.ofMinutes(5);
    private static final String REASON = "profile too old: 2026-11-22T10:00:00Z is older than 1h0m0s";

    @Test
    void a400IsCountedOnceAsRefusedWithItsReasonAndNeverSentAgainUnasked() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start().answering(400, REASON);
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "0s",
                     "relay.otlp.endpoint", receiver.endpoint(),
                     "relay.otlp.max-age", "1h",
                     // the test runs every pass itself
                     "relay.recovery.interval", "1h",
                     "relay.recovery.grace", GRACE.toString(),
                     // the recorded fixtures' first samples lie in the past
                     "relay.recovery.days", "100000"))) {
            assertEquals(200, relay.client().replay(Fixtures.sdkRequest("node-11.1.0/003")).status());
            Await.until("a refusal marker", WAIT, () -> relay.archivedChunks().size() == 1
                    && relay.archivedChunks().get(0).refused());

            ArchivedChunk chunk = relay.archivedChunks().get(0);
            assertFalse(chunk.delivered());
            assertFalse(chunk.markedForReplay());
            assertTrue(relay.archive().refusal(chunk.key()).orElseThrow().endsWith("HTTP 400: " + REASON));
            PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
            assertEquals(1.0, scrape.value("relay_export_outcomes_total", "outcome", "refused", "reason", "400"));
            assertEquals(1.0, scrape.value("relay_export_outcomes_total", "outcome", "refused"));
            assertEquals(0.0, scrape.value("relay_export_outcomes_total", "outcome", "retried"));
            assertEquals(0.0, scrape.value("relay_export_outcomes_total", "outcome", "delivered"));
            assertEquals(0.0, scrape.value("relay_export_retries_total"));

            JsonNode listed = relay.client().get("/api/v1/projects/1/chunks?from=2026-11-22T00:00:00Z"
                    + "&to=2026-11-23T00:00:00Z").body().path("chunks");
            assertEquals(1, listed.size());
            assertFalse(listed.get(0).path("delivered").asBoolean());
            assertTrue(listed.get(0).path("refused").asText().endsWith("HTTP 400: " + REASON),
                    listed.get(0).toString());

            // the recovery pass leaves it, however long it waits
            RecoveryPass pass = relay.bean(RecoveryPass.class);
            pass.run();
            relay.clock().advance(GRACE.multipliedBy(2));
            pass.run();
            assertEquals(1, receiver.attempts(), "a refusal for good is never retried");

            LocalDate day = chunk.key().day();
            ReplayCommand replay = relay.bean(ReplayCommand.class);
            ReplaySummary skipped = replay.replay("1", day, day);
            assertEquals(1, skipped.plan().skippedRefused(), skipped.describe());
            assertEquals(0, skipped.plan().toSend().size());
            assertFalse(skipped.complete(), "a refused chunk is not delivered");
            assertEquals(1, receiver.attempts(), "replay does not send a refused chunk unasked");

            // asked to, after what it was refused for is fixed
            receiver.answering(200);
            ReplayPlan asked = replay.plan("1", day, day, true);
            assertEquals(1, asked.olderThanMaxAge(), "the recorded chunk is older than 1h");
            assertTrue(asked.warning().orElseThrow().startsWith("1 of the 1 chunks to send hold profiles older than"
                    + " relay.otlp.max-age (PT1H)"), asked.warning().orElseThrow());
            ReplaySummary sent = replay.replay(asked);
            assertEquals(1, sent.delivered(), sent.describe());
            assertTrue(relay.archivedChunks().get(0).delivered());
            assertEquals(2, receiver.attempts());
        }
    }
}
