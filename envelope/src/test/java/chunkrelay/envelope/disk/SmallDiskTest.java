package chunkrelay.envelope.disk;

import chunkrelay.envelope.testing.DatedChunks;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.SmallDisk;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay with its embedded store on a real small disk ({@link SmallDisk}), sent one Java SDK chunk after another:
 * it refuses before the disk fills, with {@code Retry-After} and readiness DOWN, every chunk it answered 200 has
 * both forms, and it takes chunks again by itself once the disk has room.
 */
@Tag("external")
class SmallDiskTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DISK_MIB = 48;
    private static final int MIN_FREE_MIB = 16;
    private static final int BALLAST_MIB = 12;

    @Test
    void refusesBeforeTheDiskFillsAndTakesChunksAgainOnceThereIsRoom() throws Exception {
        try (SmallDisk disk = SmallDisk.mount(DISK_MIB)) {
            Path ballast = disk.ballast("ballast", BALLAST_MIB);
            Map<String, Object> properties = Map.of(
                    "relay.storage.embedded.directory", disk.path().resolve("data").toString(),
                    "relay.storage.embedded.min-free-disk", MIN_FREE_MIB + "MiB");
            try (ApplicationContext relay = ApplicationContext.run(EmbeddedServer.class, properties, "test")
                    .getApplicationContext()) {
                RelayClient client = new RelayClient(relay.getBean(EmbeddedServer.class).getURI());
                Instant now = Instant.now();
                Set<String> acknowledged = new HashSet<>();
                RelayClient.Answer refused = null;
                for (int n = 0; n < 2000 && refused == null; n++) {
                    RelayClient.Answer answer = client.post(Envelopes.PATH,
                            DatedChunks.envelope("java", now.plusSeconds(n), n), "X-Sentry-Auth", Envelopes.AUTH);
                    if (answer.status() == 200) {
                        acknowledged.add(DatedChunks.chunkId(n));
                    } else {
                        refused = answer;
                    }
                }

                assertNotNull(refused, "never refused");
                assertEquals(503, refused.status(), refused.raw());
                assertNotNull(refused.header("Retry-After"), refused.raw());
                assertTrue(acknowledged.size() > 10, "took " + acknowledged.size() + " chunks before refusing");
                assertTrue(disk.freeBytes() > (MIN_FREE_MIB / 2L) << 20,
                        "refused with " + disk.freeBytes() + " bytes free, not once the disk was full");
                RelayClient.Answer readiness = client.get("/health/readiness");
                assertEquals(503, readiness.status(), readiness.raw());
                assertEquals("DOWN", JSON.readTree(readiness.raw()).path("details").path("disk").path("status")
                        .asText(), readiness.raw());
                assertEquals(200, client.get("/health/liveness").status());

                ChunkArchive archive = relay.getBean(ChunkArchive.class);
                LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
                Set<String> whole = archive.list("1", today, today.plusDays(1)).stream()
                        .filter(chunk -> chunk.sentryObjectKey() != null)
                        .map(chunk -> chunk.key().chunkId()).collect(Collectors.toSet());
                assertEquals(acknowledged, whole, "every chunk answered 200 has both forms, and only those");

                Files.delete(ballast);
                RelayClient.Answer again = client.post(Envelopes.PATH,
                        DatedChunks.envelope("java", now, 5000), "X-Sentry-Auth", Envelopes.AUTH);
                assertEquals(200, again.status(), again.raw());
                assertEquals(200, client.get("/health/readiness").status());
                ArchivedChunk taken = archive.list("1", today, today.plusDays(1)).stream()
                        .filter(chunk -> chunk.key().chunkId().equals(DatedChunks.chunkId(5000))).findFirst()
                        .orElseThrow();
                assertNotNull(taken.sentryObjectKey());
            }
        }
    }
}
