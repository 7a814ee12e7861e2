package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.testing.DatedChunks;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chunk's path as shipped (the 30 s link window, rollups on) reads each SDK chunk's JSON once: at receipt, into
 * what validation, normalisation and translation read, and never again to derive it after its window; and it never
 * parses an OTLP form it made: the derivation links the object made at receipt, and the open minutes merge the
 * object the derivation made.
 */
class ChunkParsedOnceTest {
    @Test
    void chunksOfTheOpenMinutesAreMergedFromTheFormsTheDerivationMadeWithoutParsingThemBack() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "30s"))) {
            Instant firstSample = relay.clock().instant().minusSeconds(10);
            List<String> platforms = Fixtures.sdkChunks().stream()
                    .map(chunk -> chunk.itemHeader().path("platform").asText()).distinct().toList();
            int chunk = 0;
            for (String platform : platforms) {
                assertEquals(200, relay.client().post(Envelopes.PATH, DatedChunks.envelope(platform,
                        firstSample.plusMillis(chunk), chunk), "X-Sentry-Auth", Envelopes.AUTH).status(), platform);
                chunk++;
            }
            PrometheusScrape metrics = afterTheirWindow(relay);
            assertEquals(chunk, metrics.value("relay_chunks_derived_total", "when", "window"), platforms.toString());
            assertTrue(metrics.value("relay_rollups_open_minutes") > 0, "the chunks' minutes are open");
            assertEquals(0, metrics.value("relay_rollups_open_left_out_total", "when", "derived"),
                    "every derived form merged into its open minutes");
            assertEquals(0, metrics.value("relay_otlp_reads_total", "where", "open_minute"),
                    "no derived OTLP form parsed back to be merged into its open minutes");
            assertEquals(0, metrics.value("relay_otlp_reads_total", "where", "link"),
                    "no OTLP form parsed back to be linked");
        }
    }

    @Test
    void eachRecordedSdkChunkIsParsedOnceAndDerivedWithoutBeingReadBack() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "30s"))) {
            int chunks = 0;
            for (SdkRequest request : Fixtures.sdkRequests()) {
                List<String> headers = new ArrayList<>();
                request.headers().forEach(h -> {
                    headers.add(h.name());
                    headers.add(h.value());
                });
                assertEquals(200, relay.client().post(request.pathAndQuery(), request.body(),
                        headers.toArray(String[]::new)).status(), request.name());
                String envelope = new String(request.envelope(), StandardCharsets.UTF_8);
                chunks += envelope.split("\"type\":\"profile_chunk\"", -1).length - 1;
            }
            assertTrue(chunks >= 5, chunks + " chunks in the recorded requests");

            PrometheusScrape metrics = afterTheirWindow(relay);
            assertEquals(chunks, metrics.value("relay_chunks_accepted_total"), "every chunk accepted");
            assertEquals(chunks, metrics.value("relay_chunks_derived_total", "when", "window"),
                    "every chunk derived when its window ended");
            assertEquals(chunks, metrics.value("relay_chunk_json_reads_total"), "each chunk's JSON read once");
            assertEquals(0, metrics.value("relay_derivations_read_back_total"), "no chunk read back to be derived");
            assertEquals(0, metrics.value("relay_otlp_reads_total", "where", "link"),
                    "no OTLP form parsed back to be linked");
            assertEquals(0, metrics.value("relay_otlp_reads_total", "where", "open_minute"),
                    "no derived OTLP form parsed back to be merged into its open minutes");
        }
    }

    /** Moves the clock past the chunks' 30 s window, derives every one, and scrapes the relay's meters. */
    private static PrometheusScrape afterTheirWindow(RunningRelay relay) throws InterruptedException {
        relay.clock().advance(Duration.ofSeconds(31));
        relay.bean(DerivationSchedule.class).runDue();
        ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
        Await.until(() -> derivations.pendingCount() + " chunks still waiting", Duration.ofSeconds(30),
                () -> derivations.pendingCount() == 0);
        return PrometheusScrape.of(relay.uri());
    }
}
