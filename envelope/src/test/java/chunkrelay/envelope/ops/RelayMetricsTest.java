package chunkrelay.envelope.ops;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.fixtures.SdkRequest;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real relay (real pipeline, embedded archive) after every recorded SDK request, a set of invalid chunks and
 * a set of refused envelopes: {@code GET /prometheus} shows exact counts per status, item type, rejection reason,
 * platform and byte form, and the stage and export meters exist under stable names.
 */
@MicronautTest
class RelayMetricsTest {
    @Inject
    EmbeddedServer server;

    @Test
    void prometheusCountsEnvelopesByStatusAndChunksByReasonAfterSdkReplayAndInvalidChunks() {
        RelayClient client = new RelayClient(server.getURI());
        PrometheusScrape before = PrometheusScrape.of(server.getURI());
        assertEquals(0, before.valueOrZeroBeforeFirstUse("relay_envelopes_total"));

        long wireBytes = 0;
        long decodedBytes = 0;
        int sdkRequests = 0;
        for (SdkRequest request : Fixtures.sdkRequests()) {
            List<String> headers = new ArrayList<>();
            for (SdkRequest.Header header : request.headers()) {
                headers.add(header.name());
                headers.add(header.value());
            }
            assertEquals(200, client.post(request.pathAndQuery(), request.body(), headers.toArray(String[]::new))
                    .status(), request.name());
            wireBytes += request.body().length;
            decodedBytes += request.envelope().length;
            sdkRequests++;
        }

        RecordedChunk node = nodeChunk();
        String nodeJson = new String(node.payload(), StandardCharsets.UTF_8);
        List<byte[]> invalid = List.of(
                // profiling_invalid_json, twice
                chunkEnvelope("{\"type\":\"profile_chunk\",\"platform\":\"node\"}", Envelopes.bytes("{\"chunk_id\":")),
                chunkEnvelope("{\"type\":\"profile_chunk\"}", Envelopes.bytes("[1,2,3]")),
                // profiling_invalid_profile_type: header and payload disagree on the platform
                chunkEnvelope("{\"type\":\"profile_chunk\",\"platform\":\"python\"}", node.payload()),
                // profiling_platform_not_supported: version 1 is the transaction profile format
                chunkEnvelope("{\"type\":\"profile_chunk\",\"platform\":\"node\"}",
                        Envelopes.bytes(nodeJson.replace("\"version\":\"2\"", "\"version\":\"1\""))),
                // profiling_invalid_sampled_profile: meta_length on a JSON item
                chunkEnvelope("{\"type\":\"profile_chunk\",\"platform\":\"node\",\"meta_length\":10}", node.payload()),
                // profiling_not_enough_samples: Sentry's own fixture has a single sample, dropped with its thread
                chunkEnvelope("{\"type\":\"profile_chunk\",\"platform\":\"python\"}",
                        Envelopes.bytes(new String(Fixtures.bytes("vroomrs/sample__v2__valid_python.json"),
                                StandardCharsets.UTF_8).replace("\n", ""))));
        for (byte[] envelope : invalid) {
            assertEquals(200, client.post(PATH, envelope, "X-Sentry-Auth", AUTH).status());
            wireBytes += envelope.length;
            decodedBytes += envelope.length;
        }

        // refused envelopes: 400 (blank line after the header), 401 (no auth at all), 415 (unknown encoding)
        byte[] badEnvelope = Envelopes.bytes(Envelopes.header() + "\n\n");
        assertEquals(400, client.post(PATH, badEnvelope, "X-Sentry-Auth", AUTH).status());
        assertEquals(401, client.post(PATH, Envelopes.bytes("{}\n")).status());
        assertEquals(415, client.post(PATH, Envelopes.bytes("{}\n"), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "compress").status());
        // without auth in the request the body is read for a dsn; the 415 is refused before decoding, unread
        wireBytes += badEnvelope.length + "{}\n".length();
        decodedBytes += badEnvelope.length + "{}\n".length();

        PrometheusScrape after = PrometheusScrape.of(server.getURI());
        assertEquals(Map.of("200", (double) sdkRequests + invalid.size(), "400", 1.0, "401", 1.0, "415", 1.0),
                after.byLabel("relay_envelopes_total", "status"));
        assertEquals(Map.ofEntries(
                Map.entry("profiling_invalid_json", 2.0),
                Map.entry("profiling_invalid_profile_type", 1.0),
                Map.entry("profiling_platform_not_supported", 1.0),
                Map.entry("profiling_invalid_sampled_profile", 1.0),
                Map.entry("profiling_not_enough_samples", 1.0),
                Map.entry("profiling_malformed_samples", 0.0),
                Map.entry("profiling_malformed_stacks", 0.0),
                Map.entry("profiling_duration_is_too_long", 0.0),
                Map.entry("profiling_exceed_size_limit", 0.0),
                Map.entry("internal_error", 0.0),
                Map.entry("profiling_duration_is_zero", 0.0),
                Map.entry("profiling_invalid_base64_value", 0.0)),
                after.byLabel("relay_chunks_rejected_total", "reason"));
        assertEquals(Map.of("java", 2.0, "node", 4.0, "python", 1.0),
                after.byLabel("relay_chunks_accepted_total", "platform"));
        assertEquals(Map.of("profile_chunk", 7.0 + invalid.size(), "session", 3.0, "span", 2.0,
                        "transaction", 2.0, "event", 1.0),
                after.byLabel("relay_envelope_items_total", "type"));
        assertEquals(decodedBytes, after.value("relay_envelope_received_bytes_total", "form", "decoded"));
        assertEquals(wireBytes, after.value("relay_envelope_received_bytes_total", "form", "wire"));

        // latency histograms of every stage a chunk passes, with Prometheus buckets
        assertEquals(7.0 + invalid.size(), after.value("relay_chunk_stage_seconds_count", "stage", "parse"));
        for (String stage : List.of("translate", "archive", "forward")) {
            assertEquals(7.0, after.value("relay_chunk_stage_seconds_count", "stage", stage), stage);
            assertTrue(after.has("relay_chunk_stage_seconds_bucket", "stage", stage, "le", "+Inf"), stage);
        }
        assertEquals(0, after.value("relay_chunks_duplicates_total"));
        assertEquals(0, after.value("relay_archive_duplicates_total"));
        assertEquals(0, after.value("relay_archive_failures_total"));
        assertTrue(after.has("relay_archive_failures_total"));

        // forwarding is off here: its meters exist at zero
        for (String name : List.of("relay_export_attempts_total", "relay_export_retries_total",
                "relay_export_deliveries_total", "relay_export_queue_depth")) {
            assertTrue(after.has(name), name);
            assertEquals(0, after.value(name), name);
        }
        assertEquals(0, after.value("relay_export_final_failures_total", "status", "503"));
        assertTrue(after.has("relay_export_final_failures_total", "status", "none"));
    }

    private static RecordedChunk nodeChunk() {
        return Fixtures.sdkChunks().stream().filter(c -> c.itemHeader().path("platform").asText().equals("node"))
                .findFirst().orElseThrow();
    }

    private static byte[] chunkEnvelope(String itemHeader, byte[] payload) {
        return Envelopes.withItem(Envelopes.header(), itemHeader, payload);
    }
}
