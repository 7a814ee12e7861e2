package chunkrelay.envelope.sdk;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stand-in relay takes requests recorded from real SDKs the way Relay would, and refuses a wrong DSN. */
class EnvelopeRecorderTest {

    private static final String FIXTURE_KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void splitsAGzippedNodeEnvelopeWhoseItemsHaveNoLength() throws Exception {
        try (EnvelopeRecorder recorder = EnvelopeRecorder.start(1, FIXTURE_KEY)) {
            HttpResponse<String> response = replay(recorder, Fixtures.sdkRequest("node-11.1.0/003"));

            assertEquals(200, response.statusCode());
            assertEquals("{\"id\":\"244cce44d70948cc80ee85fbb3e4b358\"}", response.body());
            ReceivedEnvelope envelope = recorder.envelopes().get(0);
            assertEquals(List.of("profile_chunk"), envelope.items().stream().map(ReceivedEnvelope.Item::type).toList());
            assertEquals("a1552b44ba7c4b90b4479d8294a8c99f",
                    recorder.profileChunks().get(0).path("chunk_id").asText());
        }
    }

    @Test
    void splitsAJavaEnvelopeByItemLength() throws Exception {
        try (EnvelopeRecorder recorder = EnvelopeRecorder.start(1, FIXTURE_KEY)) {
            HttpResponse<String> response = replay(recorder, Fixtures.sdkRequest("java-8.43.0/001"));

            assertEquals(200, response.statusCode());
            ReceivedEnvelope.Item item = recorder.envelopes().get(0).items().get(0);
            assertEquals(item.header().path("length").asInt(), item.payload().length);
            assertEquals("11b9d7fc9e2d44669330bbbf65a2b3fd",
                    recorder.profileChunks().get(0).path("chunk_id").asText());
        }
    }

    @Test
    void refusesAnotherPublicKeyAndTheRunCheckReportsIt() throws Exception {
        try (EnvelopeRecorder recorder = EnvelopeRecorder.start(1, "0123456789abcdef0123456789abcdef")) {
            HttpResponse<String> response = replay(recorder, Fixtures.sdkRequest("java-8.43.0/001"));

            assertEquals(401, response.statusCode());
            assertTrue(recorder.profileChunks().isEmpty());
            AssertionError error = assertThrows(AssertionError.class,
                    () -> ProfileChunkAssertions.assertEveryEnvelopeAccepted("java", recorder.envelopes()));
            assertTrue(error.getMessage().startsWith("java SDK: 1 of 1 envelopes were not accepted: [401 for"),
                    error.getMessage());
        }
    }

    @Test
    void forwardsToTheRelayAndRecordsTheRelaysAnswers() throws Exception {
        try (EnvelopeRecorder relay = EnvelopeRecorder.start(1, FIXTURE_KEY);
             EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(relay.target())) {
            HttpResponse<String> accepted = replay(hop, Fixtures.sdkRequest("java-8.43.0/001"));
            HttpResponse<String> wrongPath = CLIENT.send(HttpRequest.newBuilder(
                    URI.create(hop.target().baseUrl() + "/api/1/store/")).POST(HttpRequest.BodyPublishers.noBody())
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertEquals(200, accepted.statusCode());
            assertEquals("{\"id\":\"11b9d7fc9e2d44669330bbbf65a2b3fd\"}", accepted.body());
            assertEquals(404, wrongPath.statusCode());
            assertEquals(List.of(200, 404), hop.envelopes().stream().map(ReceivedEnvelope::status).toList());
            assertEquals(relay.profileChunks(), hop.profileChunks());
            assertEquals(hop.target().dsn().replace(":" + hop.target().baseUrl().getPort() + "/",
                    ":" + relay.target().baseUrl().getPort() + "/"), relay.target().dsn());
        }
    }

    @Test
    void dsnOfItsTargetNamesTheLoopbackPortAndProject() throws IOException {
        try (EnvelopeRecorder recorder = EnvelopeRecorder.start(42, FIXTURE_KEY)) {
            RelayTarget target = recorder.target();
            assertEquals("http://" + FIXTURE_KEY + "@127.0.0.1:" + target.baseUrl().getPort() + "/42", target.dsn());
        }
    }

    private static HttpResponse<String> replay(EnvelopeRecorder recorder, SdkRequest request) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(recorder.target().baseUrl()
                        + request.pathAndQuery()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(request.body()));
        request.headers().forEach(header -> builder.header(header.name(), header.value()));
        return CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }
}
