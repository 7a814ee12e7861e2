package chunkrelay.envelope.ops;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.testing.Await;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

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

        awaitStatus(client, "/health/readiness", 200);
        JsonNode ready = client.get("/health/readiness").body();
        assertEquals("UP", ready.path("details").path("archive").path("status").asText(), ready.toString());

        s3.stop();
        try {
            awaitStatus(client, "/health/readiness", 503);
            JsonNode unready = client.get("/health/readiness").body();
            assertEquals("DOWN", unready.path("details").path("archive").path("status").asText(), unready.toString());
            assertEquals(200, client.get("/health/liveness").status());
            RelayClient.Answer refused = client.post("/api/3/envelope/", envelope, "X-Sentry-Auth", AUTH);
            assertEquals(503, refused.status(), refused.raw());
            assertEquals("5", refused.header("Retry-After"), "the SDK is told when to come back");
        } finally {
            s3.restart();
        }

        awaitStatus(client, "/health/readiness", 200);
        assertEquals(200, client.post("/api/3/envelope/", envelope, "X-Sentry-Auth", AUTH).status());
        PrometheusScrape metrics = PrometheusScrape.of(server.getURI());
        assertEquals(1, metrics.value("relay_archive_failures_total"));
        assertEquals(1, metrics.value("relay_chunks_accepted_total", "platform", "node"));
        assertEquals(0, metrics.value("relay_chunks_duplicates_total"));
    }

    @Test
    void viewsAnswer503InRelaysShapeWhileTheArchiveIsUnreachable() throws Exception {
        RelayClient client = new RelayClient(server.getURI());
        awaitStatus(client, "/api/v1/projects", 200);
        s3.stop();
        try {
            RelayClient.Answer answer = client.get("/api/v1/projects");
            assertEquals(503, answer.status(), answer.raw());
            assertEquals("archive unavailable", answer.body().path("detail").asText(), answer.raw());
            assertEquals("5", answer.header("Retry-After"), "relay.limits.retry-after");
        } finally {
            s3.restart();
        }
        awaitStatus(client, "/api/v1/projects", 200);
    }

    private static void awaitStatus(RelayClient client, String path, int status) throws InterruptedException {
        Await.until(path + " answering " + status, Duration.ofSeconds(15), () -> client.get(path).status() == status);
    }
}
