package chunkrelay.envelope.health;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What bounds the health counts' memory and the meters' tags: past {@code relay.health.max-sdks} SDKs in a project's
 * hour the others are counted together as other; the meters' SDK tags are Sentry's names, a major.minor and a
 * platform, each else other.
 */
class HealthBoundsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode read(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void pastMaxSdksAProjectsHourCountsFurtherSdksTogetherAsOther() {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.health.max-sdks", 2))) {
            Instant start = Instant.now();
            RelayClient client = relay.client();
            for (int sdk = 0; sdk < 5; sdk++) {
                // refused chunks (not JSON), each from an SDK of its own named by the envelope
                byte[] envelope = Envelopes.withItem("{\"sdk\":{\"name\":\"sdk-" + sdk + "\",\"version\":\"1.0\"}}",
                        "{\"type\":\"profile_chunk\",\"platform\":\"node\",\"length\":1}", Envelopes.bytes("["));
                assertEquals(200, client.post(Envelopes.PATH, envelope, "X-Sentry-Auth", Envelopes.AUTH).status());
            }
            RelayClient.Answer answer = client.get("/api/v1/projects/1/health?from=" + (start.getEpochSecond() - 60)
                    + "&to=" + (Instant.now().getEpochSecond() + 60));
            Map<String, Long> refused = new TreeMap<>();
            for (JsonNode row : answer.body().path("sdks")) {
                refused.put(row.path("sdk").asText() + " " + row.path("version").asText() + " "
                        + row.path("platform").asText(), row.path("rejected").path("profiling_invalid_json").asLong());
            }
            assertEquals(Map.of("sdk-0 1.0 node", 1L, "sdk-1 1.0 node", 1L, "other other other", 3L), refused);
            assertEquals(5, PrometheusScrape.of(relay.uri()).value("relay_sdk_chunks_rejected_total", "sdk", "other",
                    "sdk_version", "1.0", "platform", "node"), "names Sentry does not use are other in the meters");
        }
    }

    @Test
    void metricTagsAreSentrysSdkNamesMajorMinorVersionsAndKnownPlatformsElseOther() {
        assertEquals(new SdkLabels("sentry.java", "8.43", "java"),
                SdkLabels.of(new SdkKey("sentry.java", "8.43.0", "java")));
        assertEquals(new SdkLabels("sentry.python", "2.75", "python"),
                SdkLabels.of(new SdkKey("sentry.python", "2.75.0-rc.1", "python")));
        assertEquals(new SdkLabels("other", "other", "other"),
                SdkLabels.of(new SdkKey("sentry.python.aiohttp" + "x".repeat(100), "latest", "brainfuck")));
        assertEquals(new SdkLabels("other", "other", "other"), SdkLabels.of(new SdkKey(null, null, null)));
        assertEquals(SdkKey.MAX_LENGTH, new SdkKey("x".repeat(500), "1", "node").sdk().length());
        for (var chunk : Fixtures.sdkChunks()) {
            String name = read(chunk.payload()).path("client_sdk").path("name").asText();
            assertEquals(name, SdkLabels.of(new SdkKey(name, "1.0", "node")).sdk(), "a recorded SDK keeps its name");
        }
    }
}
