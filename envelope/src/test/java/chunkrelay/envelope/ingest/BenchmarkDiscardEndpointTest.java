package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The benchmark's floor endpoint exists only when configured, and decodes bodies as the envelope endpoint does. */
class BenchmarkDiscardEndpointTest {
    private static final String DISCARD = "/benchmark/discard";

    @Test
    void isNotThereUnlessConfigured() {
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class,
                Map.of("micronaut.server.port", -1))) {
            assertEquals(404, new RelayClient(server.getURI()).post(DISCARD, Envelopes.withChunk()).status());
        }
    }

    @Test
    void decodesTheRecordedGzipBodyAndAnswersItsDecodedSize() {
        SdkRequest recorded = Fixtures.sdkRequest("java-8.43.0/001");
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class,
                Map.of("micronaut.server.port", -1, "relay.benchmark.discard-endpoint", true))) {
            RelayClient.Answer answer = new RelayClient(server.getURI()).post(DISCARD, recorded.body(),
                    "Content-Encoding", "gzip");
            assertEquals(200, answer.status());
            assertEquals(recorded.envelope().length, answer.body().get("decoded_bytes").asLong());
        }
    }

    @Test
    void refusesACorruptBodyAsTheEnvelopeEndpointDoes() {
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class,
                Map.of("micronaut.server.port", -1, "relay.benchmark.discard-endpoint", true))) {
            assertEquals(400, new RelayClient(server.getURI()).post(DISCARD, new byte[] {1, 2, 3, 4},
                    "Content-Encoding", "gzip").status());
        }
    }
}
