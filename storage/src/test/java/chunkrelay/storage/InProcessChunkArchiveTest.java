package chunkrelay.storage;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;

import static chunkrelay.storage.ArchiveFixtures.entry;
import static chunkrelay.storage.ArchiveFixtures.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@link ChunkArchiveTest} again with the archive reaching the server's store in-process, as the relay reaches
 * its own embedded store: the same answers as over HTTP, and what it wrote is what the HTTP endpoint serves.
 */
class InProcessChunkArchiveTest extends ChunkArchiveTest {

    @Override
    ChunkArchive open(ArchiveSettings settings) {
        return ChunkArchive.inProcess(server, settings, Clock.systemUTC());
    }

    @Test
    void aStoppedServerIsUnavailableInProcessTooAndServesAgainAfterARestart() {
        ArchiveSettings settings = settings(server).withDeadline(Duration.ofMillis(500))
                .withRetry(3, Duration.ofMillis(20));
        try (ChunkArchive archive = open(settings);
             ChunkArchive overHttp = new ChunkArchive(settings, Clock.systemUTC())) {
            server.stop();
            try {
                ArchiveUnavailableException e = assertThrows(ArchiveUnavailableException.class,
                        () -> entry(21).archiveIn(archive));
                assertTrue(e.getMessage().contains("stopped"), e.getMessage());
            } finally {
                server.restart();
            }
            assertEquals(ArchiveResult.STORED, entry(21).archiveIn(archive));
            // written in-process, served over HTTP
            assertEquals(1, overHttp.list(entry(21).key().projectId(), entry(21).key().day(),
                    entry(21).key().day()).size());
        }
    }
}
