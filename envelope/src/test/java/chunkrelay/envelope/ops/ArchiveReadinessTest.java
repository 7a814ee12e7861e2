package chunkrelay.envelope.ops;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Readiness follows the archive: with the S3 server (a real S3Proxy, outside the relay) stopped, the relay
 * reports itself unready and answers chunks with 503 while liveness stays up; once the server is back, ready
 * again, and the chunk refused meanwhile is archived when it comes again.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArchiveReadinessTest implements TestPropertyProvider {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();

    @Inject
    EmbeddedServer server;

    @Override
    public Map<String, String> getProperties() {
        return Map.of(
                "relay.storage.s3.endpoint", s3.endpoint().toString(),
                "relay.storage.s3.bucket", "readiness",
                "relay.storage.s3.path-style", "true",
                "relay.storage.s3.access-key", s3.accessKey(),
                "relay.storage.s3.secret-key", s3.secretKey(),
                // an outage is found out quickly, and a chunk is refused quickly while it lasts
                "relay.storage.deadline", "1s",
                "relay.health.archive-check-interval", "100ms");
    }

    @AfterAll
    void stopS3() {
        s3.close();
    }

    @Test
    void turnsUnreadyWhileTheArchiveIsUnreachableAndReadyAgainAfter() throws Exception {
        RecordedChunk node = Fixtures.sdkChunks().stream()
                .filter(c -> c.itemHeader().path("platform").asText().equals("node")).findFirst().orElseThrow();
        byte[] envelope = Envelopes.withItem(Envelopes.header(), node.itemHeader().toString(), node.payload());
        RelayClient client = new RelayClient(server.getURI());

        awaitStatus("/health/readiness", 200);
        JsonNode ready = JSON.readTree(get("/health/readiness").body());
        assertEquals("UP", ready.path("details").path("archive").path("status").asText(), ready.toString());

        s3.stop();
        try {
            awaitStatus("/health/readiness", 503);
            JsonNode unready = JSON.readTree(get("/health/readiness").body());
            assertEquals("DOWN", unready.path("details").path("archive").path("status").asText(), unready.toString());
            assertEquals(200, get("/health/liveness").statusCode());
            RelayClient.Answer refused = client.post("/api/3/envelope/", envelope, "X-Sentry-Auth", AUTH);
            assertEquals(503, refused.status(), refused.raw());
            assertEquals("5", refused.header("Retry-After"), "the SDK is told when to come back");
        } finally {
            s3.restart();
        }

        awaitStatus("/health/readiness", 200);
        assertEquals(200, client.post("/api/3/envelope/", envelope, "X-Sentry-Auth", AUTH).status());
        PrometheusScrape metrics = PrometheusScrape.of(server.getURI());
        assertEquals(1, metrics.value("relay_archive_failures_total"));
        assertEquals(1, metrics.value("relay_chunks_accepted_total", "platform", "node"));
        assertEquals(0, metrics.value("relay_chunks_duplicates_total"));
    }

    @Test
    void viewsAnswer503InRelaysShapeWhileTheArchiveIsUnreachable() throws Exception {
        awaitStatus("/api/v1/projects", 200);
        s3.stop();
        try {
            HttpResponse<String> answer = get("/api/v1/projects");
            assertEquals(503, answer.statusCode(), answer.body());
            assertEquals("archive unavailable", JSON.readTree(answer.body()).path("detail").asText(), answer.body());
            assertEquals("10", answer.headers().firstValue("Retry-After").orElse(null));
        } finally {
            s3.restart();
        }
        awaitStatus("/api/v1/projects", 200);
    }

    private void awaitStatus(String path, int status) throws IOException, InterruptedException {
        long giveUp = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        int last;
        while ((last = get(path).statusCode()) != status) {
            if (System.nanoTime() > giveUp) {
                throw new AssertionError(path + " stayed " + last + ", expected " + status);
            }
            Thread.sleep(50);
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(server.getURI().resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
