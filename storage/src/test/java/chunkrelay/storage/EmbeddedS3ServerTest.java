package chunkrelay.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static chunkrelay.storage.ArchiveFixtures.DAY;
import static chunkrelay.storage.ArchiveFixtures.entry;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedS3ServerTest {

    @Test
    void filesystemServerKeepsBothObjectsAsFilesUnderItsDirectory(@TempDir Path directory) throws IOException {
        ArchiveEntry entry = entry(1);
        try (EmbeddedS3Server server = EmbeddedS3Server.filesystem(directory);
             ChunkArchive archive = new ChunkArchive(server.applyTo(ArchiveSettings.defaults()), Clock.systemUTC())) {
            assertEquals(directory.toAbsolutePath().normalize(), server.directory().orElseThrow());
            assertEquals(ArchiveResult.STORED, entry.archiveIn(archive));
        }
        Path stem = directory.resolve(ArchiveSettings.DEFAULT_BUCKET).resolve(entry.key().stem());
        Path sentry = stem.resolveSibling(stem.getFileName() + ".sentry.json.zst");
        Path otlp = stem.resolveSibling(stem.getFileName() + ".otlp.binpb.zst");
        assertArrayEquals(entry.sentryPayload(), ChunkArchiveTest.unzstd(Files.readAllBytes(sentry)));
        assertArrayEquals(entry.otlpPayload(), ChunkArchiveTest.unzstd(Files.readAllBytes(otlp)));

        // a later relay on the same directory finds the chunk archived
        try (EmbeddedS3Server server = EmbeddedS3Server.filesystem(directory);
             ChunkArchive archive = new ChunkArchive(server.applyTo(ArchiveSettings.defaults()), Clock.systemUTC())) {
            assertEquals(ArchiveResult.DUPLICATE, entry.archiveIn(archive));
            List<ArchivedChunk> listed = archive.list("42", DAY, DAY);
            assertEquals(List.of(entry.key()), listed.stream().map(ArchivedChunk::key).toList());
            assertArrayEquals(entry.otlpPayload(), archive.readOtlp(listed.get(0)));
        }
    }

    @Test
    void relaysDefaultStoreTakesUnsignedRequestsWhereASigningStoreRefusesThem(@TempDir Path directory) {
        ArchiveEntry entry = entry(2);
        try (EmbeddedS3Server unsigned = EmbeddedS3Server.unsignedFilesystem(directory.resolve("default"));
             ChunkArchive archive = new ChunkArchive(unsigned.applyTo(ArchiveSettings.defaults()), Clock.systemUTC())) {
            assertTrue(archive.settings().anonymous());
            assertEquals(ArchiveResult.STORED, entry.archiveIn(archive));
            assertArrayEquals(entry.otlpPayload(), archive.readOtlp(archive.list("42", DAY, DAY).get(0)));
        }
        try (EmbeddedS3Server signing = EmbeddedS3Server.filesystem(directory.resolve("signing"));
             ChunkArchive archive = new ChunkArchive(signing.applyTo(ArchiveSettings.defaults())
                     .withAnonymousAccess().withDeadline(Duration.ofSeconds(2)), Clock.systemUTC())) {
            assertThrows(ArchiveUnavailableException.class, () -> entry.archiveIn(archive));
        }
    }

    @Test
    void filesystemServerLetsOneOfEightConcurrentArchiversStoreAChunk(@TempDir Path directory) throws Exception {
        try (EmbeddedS3Server server = EmbeddedS3Server.filesystem(directory)) {
            ArchiveSettings settings = server.applyTo(ArchiveSettings.defaults());
            List<ChunkArchive> relays = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                relays.add(new ChunkArchive(settings, Clock.systemUTC()));
            }
            relays.get(0).reachable();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                for (int round = 0; round < 5; round++) {
                    ArchiveEntry entry = entry(50 + round);
                    assertEquals(1, ArchiveRace.stored(pool, relays, entry), "round " + round);
                    ArchivedChunk chunk = relays.get(1).list("42", DAY, DAY).stream()
                            .filter(c -> c.key().equals(entry.key())).findFirst().orElseThrow();
                    assertArrayEquals(entry.sentryPayload(), relays.get(2).readSentry(chunk));
                    assertArrayEquals(entry.otlpPayload(), relays.get(3).readOtlp(chunk));
                }
            } finally {
                pool.shutdownNow();
                relays.forEach(ChunkArchive::close);
            }
        }
    }

    @Test
    void listensOnLoopbackWithGeneratedOrFixedCredentials() {
        try (EmbeddedS3Server generated = EmbeddedS3Server.inMemory();
             EmbeddedS3Server fixed = EmbeddedS3Server.start(null, "relay", "relay-secret")) {
            assertEquals("127.0.0.1", generated.endpoint().getHost());
            assertTrue(generated.port() > 0);
            assertNotEquals(generated.port(), fixed.port());
            assertEquals(20, generated.accessKey().length());
            assertEquals(40, generated.secretKey().length());
            assertEquals("relay", fixed.accessKey());
            try (ChunkArchive archive = new ChunkArchive(fixed.applyTo(ArchiveSettings.defaults()),
                    Clock.systemUTC())) {
                assertEquals(ArchiveResult.STORED, entry(2).archiveIn(archive));
            }
        }
    }
}
