package chunkrelay.envelope.disk;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The disk guard of the embedded store with a minimum no disk has: every envelope is refused before anything is
 * written, with {@code Retry-After}, and readiness says why while liveness stays up. (Refusing before a real small
 * disk fills, and taking chunks again once it has room: {@link SmallDiskTest}.)
 */
@MicronautTest
@Property(name = "relay.storage.embedded.min-free-disk", value = "1000000TiB")
class DiskGuardTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    EmbeddedServer server;

    @Inject
    EmbeddedS3Server embedded;

    @Test
    void belowTheMinimumEnvelopesAreRefusedWithRetryAfterAndNothingIsWritten() throws IOException {
        RelayClient client = new RelayClient(server.getURI());

        RelayClient.Answer refused = client.post(Envelopes.PATH, Envelopes.withChunk(), "X-Sentry-Auth", Envelopes.AUTH);

        assertEquals(503, refused.status(), refused.raw());
        assertEquals("failed to queue envelope", refused.detail());
        assertTrue(refused.causes().contains("disk is nearly full"), refused.raw());
        assertEquals("5", refused.header("Retry-After"));
        try (Stream<Path> files = Files.walk(embedded.directory().orElseThrow())) {
            assertEquals(0, files.filter(f -> f.toString().contains("sentry.json")).count(), "nothing written");
        }
        assertEquals(1, PrometheusScrape.of(server.getURI()).value("relay_disk_guard_refusals_total"));
    }

    @Test
    void belowTheMinimumReadinessIsDownWithTheReasonAndLivenessUp() throws IOException {
        RelayClient client = new RelayClient(server.getURI());

        RelayClient.Answer readiness = client.get("/health/readiness");
        JsonNode disk = JSON.readTree(readiness.raw()).path("details").path("disk");

        assertEquals(503, readiness.status(), readiness.raw());
        assertEquals("DOWN", disk.path("status").asText(), readiness.raw());
        assertTrue(disk.path("details").path("reason").asText().contains("min-free-disk"), readiness.raw());
        assertTrue(disk.path("details").path("free-bytes").asLong() > 0, readiness.raw());
        assertEquals(200, client.get("/health/liveness").status());
    }
}
