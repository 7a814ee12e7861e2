package chunkrelay.envelope.sdk;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recording hop passes requests recorded from real SDKs to the relay unchanged, splits them as the relay
 * does, and records the relay's answers, refusals included, so the run check can report them.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "relay.projects.1.keys", value = EnvelopeRecorderTest.FIXTURE_KEY)
class EnvelopeRecorderTest {

    static final String FIXTURE_KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Inject
    EmbeddedServer server;

    private RelayTarget relay() {
        return new RelayTarget(server.getURI(), 1, FIXTURE_KEY);
    }

    @Test
    void splitsAGzippedNodeEnvelopeWhoseItemsHaveNoLength() throws Exception {
        try (EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(relay())) {
            HttpResponse<String> response = replay(hop, Fixtures.sdkRequest("node-11.1.0/003"));

            assertEquals(200, response.statusCode());
            assertEquals("{\"id\":\"244cce44d70948cc80ee85fbb3e4b358\"}", response.body());
            ReceivedEnvelope envelope = hop.envelopes().get(0);
            assertEquals(200, envelope.status());
            assertEquals(List.of("profile_chunk"), envelope.items().stream().map(ReceivedEnvelope.Item::type).toList());
            assertEquals("a1552b44ba7c4b90b4479d8294a8c99f", hop.profileChunks().get(0).path("chunk_id").asText());
        }
    }

    @Test
    void splitsAJavaEnvelopeByItemLengthKeepingThePayloadAsSent() throws Exception {
        try (EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(relay())) {
            HttpResponse<String> response = replay(hop, Fixtures.sdkRequest("java-8.43.0/001"));

            assertEquals(200, response.statusCode());
            assertEquals("{\"id\":\"11b9d7fc9e2d44669330bbbf65a2b3fd\"}", response.body());
            ReceivedEnvelope.Item item = hop.envelopes().get(0).items().get(0);
            assertEquals(item.header().path("length").asInt(), item.payload().length);
            byte[] recorded = Fixtures.sdkChunks().stream().filter(c -> c.request().equals("java-8.43.0/001"))
                    .findFirst().orElseThrow().payload();
            assertArrayEquals(recorded, hop.profileChunkPayloads().get(0));
        }
    }

    @Test
    void recordsTheRelaysRefusalsAndTheRunCheckReportsThem() throws Exception {
        try (EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(relay())) {
            SdkRequest request = Fixtures.sdkRequest("java-8.43.0/001");
            HttpResponse<String> unknownProject = send(hop, request.pathAndQuery().replace("/api/1/", "/api/2/"),
                    request);
            HttpResponse<String> wrongPath = CLIENT.send(HttpRequest.newBuilder(
                    URI.create(hop.target().baseUrl() + "/api/1/store/")).POST(HttpRequest.BodyPublishers.noBody())
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertEquals(401, unknownProject.statusCode());
            assertEquals(404, wrongPath.statusCode());
            assertEquals(List.of(401, 404), hop.envelopes().stream().map(ReceivedEnvelope::status).toList());
            AssertionError error = assertThrows(AssertionError.class,
                    () -> ProfileChunkAssertions.assertEveryEnvelopeAccepted("java", hop.envelopes()));
            assertTrue(error.getMessage().startsWith("java SDK: 2 of 2 envelopes were not accepted: [401 for"),
                    error.getMessage());
        }
    }

    @Test
    void answers502WhenTheRelayIsUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(
                new RelayTarget(URI.create("http://127.0.0.1:" + closedPort), 1, FIXTURE_KEY))) {
            HttpResponse<String> response = replay(hop, Fixtures.sdkRequest("java-8.43.0/001"));

            assertEquals(502, response.statusCode());
            assertTrue(response.body().contains("relay unreachable"), response.body());
            assertEquals(List.of(502), hop.envelopes().stream().map(ReceivedEnvelope::status).toList());
        }
    }

    @Test
    void dsnOfItsTargetNamesTheHopsLoopbackPortAndTheRelaysProject() throws IOException {
        try (EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(new RelayTarget(server.getURI(), 42, FIXTURE_KEY))) {
            RelayTarget target = hop.target();
            assertEquals("http://" + FIXTURE_KEY + "@127.0.0.1:" + target.baseUrl().getPort() + "/42", target.dsn());
        }
    }

    private static HttpResponse<String> replay(EnvelopeRecorder hop, SdkRequest request) throws Exception {
        return send(hop, request.pathAndQuery(), request);
    }

    private static HttpResponse<String> send(EnvelopeRecorder hop, String pathAndQuery, SdkRequest request)
            throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(hop.target().baseUrl() + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.ofByteArray(request.body()));
        request.headers().forEach(header -> builder.header(header.name(), header.value()));
        return CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }
}
