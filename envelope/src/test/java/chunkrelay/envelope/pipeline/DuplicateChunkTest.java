package chunkrelay.envelope.pipeline;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A chunk sent again (an SDK retry) is answered 200 without a second translation or archive write, and is
 * counted as a duplicate; the real pipeline and the embedded archive are in place.
 */
@MicronautTest
class DuplicateChunkTest {
    @Inject
    EmbeddedServer server;

    @Inject
    ChunkArchive archive;

    @Inject
    EmbeddedS3Server embedded;

    @Test
    void answersARepeatedChunkWith200AndNoWorkCountingOneDuplicate() throws IOException {
        RecordedChunk node = Fixtures.sdkChunks().stream()
                .filter(c -> c.itemHeader().path("platform").asText().equals("node")).findFirst().orElseThrow();
        byte[] envelope = Envelopes.withItem(Envelopes.header(), node.itemHeader().toString(), node.payload());
        RelayClient client = new RelayClient(server.getURI());

        RelayClient.Answer first = client.post("/api/5/envelope/", envelope, "X-Sentry-Auth", AUTH);
        RelayClient.Answer second = client.post("/api/5/envelope/", envelope, "X-Sentry-Auth", AUTH);

        assertEquals(200, first.status(), first.raw());
        assertEquals(200, second.status(), second.raw());
        assertEquals(first.raw(), second.raw());
        List<ArchivedChunk> archived = archive.list("5", LocalDate.of(2026, 11, 1), LocalDate.of(2026, 11, 30));
        assertEquals(1, archived.size());
        // one write of each form: the Sentry JSON and the OTLP protobuf, nothing else under the project
        assertEquals(2, objectFiles(embedded.directory().orElseThrow().resolve("chunk-relay").resolve("5")));

        PrometheusScrape metrics = PrometheusScrape.of(server.getURI());
        assertEquals(1, metrics.value("relay_chunks_duplicates_total"));
        assertEquals(1, metrics.value("relay_chunks_accepted_total", "platform", "node"));
        assertEquals(0, metrics.value("relay_archive_duplicates_total"));
        assertEquals(1, metrics.value("relay_chunk_stage_seconds_count", "stage", "translate"));
        assertEquals(1, metrics.value("relay_chunk_stage_seconds_count", "stage", "archive"));
        assertEquals(2, metrics.value("relay_envelopes_total", "status", "200"));
    }

    private static long objectFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).count();
        }
    }
}
