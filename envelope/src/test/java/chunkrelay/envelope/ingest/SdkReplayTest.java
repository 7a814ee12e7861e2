package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.CountingChunkPipeline;
import chunkrelay.envelope.testing.RelayClient;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every request recorded from a real SDK, replayed byte for byte, is accepted with the SDK's event id. */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class SdkReplayTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    EmbeddedServer server;

    @Inject
    CountingChunkPipeline pipeline;

    @Test
    void acceptsEveryRecordedSdkRequestWithItsEventId() throws IOException {
        RelayClient client = new RelayClient(server.getURI());
        List<SdkRequest> requests = Fixtures.sdkRequests();
        assertFalse(requests.isEmpty());
        long chunksBefore = pipeline.accepted();
        int expectedChunks = 0;
        for (SdkRequest request : requests) {
            List<String> headers = new ArrayList<>();
            for (SdkRequest.Header header : request.headers()) {
                headers.add(header.name());
                headers.add(header.value());
            }
            RelayClient.Answer answer = client.post(request.pathAndQuery(), request.body(),
                    headers.toArray(String[]::new));
            JsonNode envelopeHeader = JSON.readTree(firstLine(request.envelope()));
            assertEquals(200, answer.status(), request.name() + ": " + answer.raw());
            if (envelopeHeader.has("event_id")) {
                assertEquals(envelopeHeader.get("event_id").asText(), answer.body().path("id").asText(),
                        request.name());
            } else {
                assertEquals("{}", answer.raw(), request.name());
            }
            if (new String(request.envelope(), java.nio.charset.StandardCharsets.UTF_8).contains("\"type\":\"profile_chunk\"")) {
                expectedChunks++;
            }
        }
        assertTrue(expectedChunks >= 5);
        assertEquals(expectedChunks, pipeline.accepted() - chunksBefore);
    }

    private static byte[] firstLine(byte[] envelope) {
        int i = 0;
        while (i < envelope.length && envelope[i] != '\n') {
            i++;
        }
        return java.util.Arrays.copyOf(envelope, i);
    }
}
