package chunkrelay.storage;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static chunkrelay.storage.ArchiveFixtures.DAY;
import static chunkrelay.storage.ArchiveFixtures.entry;
import static chunkrelay.storage.ArchiveFixtures.settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 14's two-step archive against a real S3 server: the Sentry form first (the chunk is safe), the OTLP form
 * derived later, written once however many derive it at the same time.
 */
class DerivedFormTest {
    static EmbeddedS3Server server;

    @BeforeAll
    static void startServer() {
        ArchiveFixtures.warmUp();
        server = EmbeddedS3Server.inMemory();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** The archive under test: over the server's HTTP endpoint here, in-process in a subclass. */
    ChunkArchive open() {
        return new ChunkArchive(settings(server), Clock.systemUTC());
    }

    @Test
    void sentryFormAloneIsUnderivedUntilItsOtlpFormIsStoredOnce() {
        ArchiveEntry entry = entry(1);
        try (ChunkArchive archive = open()) {
            Instant before = Instant.now().minusSeconds(5);
            assertEquals(ArchiveResult.STORED, archive.archiveSentryForm(entry.key(), entry.sentryPayload(),
                    entry.metadata()));
            assertEquals(ArchiveResult.DUPLICATE, archive.archiveSentryForm(entry.key(), entry.sentryPayload(),
                    entry.metadata()));
            List<UnderivedChunk> underived = archive.listUnderived(entry.key().projectId(), DAY);
            assertEquals(List.of(entry.key()), underived.stream().map(UnderivedChunk::key).toList());
            assertTrue(underived.get(0).sentryWrittenAt().isAfter(before));
            assertEquals(List.of(), archive.list(entry.key().projectId(), DAY, DAY), "not listed before derivation");
            assertArrayEquals(entry.sentryPayload(), archive.readSentry(entry.key()).orElseThrow());

            assertEquals(ArchiveResult.STORED, archive.storeDerivedOtlp(entry.key(), entry.otlpPayload(), Map.of()));
            assertEquals(ArchiveResult.DUPLICATE, archive.storeDerivedOtlp(entry.key(), entry.otlpPayload(), Map.of()));
            assertEquals(List.of(), archive.listUnderived(entry.key().projectId(), DAY));
            List<ArchivedChunk> listed = archive.list(entry.key().projectId(), DAY, DAY);
            assertEquals(1, listed.size());
            assertArrayEquals(entry.otlpPayload(), archive.readOtlp(listed.get(0)));
        }
    }

    @Test
    void concurrentDerivationsOfOneChunkStoreItOnce() throws Exception {
        ArchiveEntry entry = entry(2);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (ChunkArchive archive = open()) {
            archive.archiveSentryForm(entry.key(), entry.sentryPayload(), entry.metadata());
            List<Future<ArchiveResult>> results = pool.invokeAll(java.util.Collections.nCopies(8,
                    () -> archive.storeDerivedOtlp(entry.key(), entry.otlpPayload(), Map.of())));
            long stored = 0;
            for (Future<ArchiveResult> result : results) {
                stored += result.get() == ArchiveResult.STORED ? 1 : 0;
            }
            assertEquals(1, stored);
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void projectsAreTheNumericTopLevelFoldersOnly() {
        try (ChunkArchive archive = open()) {
            archive.archiveSentryForm(entry("42", DAY, 3).key(), new byte[] {'{', '}'}, Map.of());
            archive.archiveSentryForm(entry("7", DAY, 4).key(), new byte[] {'{', '}'}, Map.of());
            archive.store().storeObject("upstream-spool/x", new byte[1]);
            archive.store().storeObject("spans/7/abc/x", new byte[1]);
            archive.quarantine("7", null, new byte[1], "test");
            assertEquals(List.of("42", "7"), archive.listProjects());
            archive.archiveSentryForm(entry("7", DAY.minusDays(3), 5).key(), new byte[] {'{', '}'}, Map.of());
            assertEquals(List.of(DAY.minusDays(3), DAY), archive.listDays("7"));
            assertEquals(java.util.Optional.empty(), archive.readSentry(entry("42", DAY, 99).key()));
        }
    }
}
