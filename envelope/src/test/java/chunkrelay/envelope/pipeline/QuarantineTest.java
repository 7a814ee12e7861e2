package chunkrelay.envelope.pipeline;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.chunk.ProfileChunk;

import com.github.luben.zstd.Zstd;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chunk the relay fails on (here, a translator with a bug) is not a client error: the client gets 200, the chunk
 * is counted as {@code internal_error}, and its payload is kept under the archive's quarantine prefix.
 */
@MicronautTest
@Property(name = "test.translator", value = "failing")
class QuarantineTest {
    @Inject
    EmbeddedServer server;

    @Inject
    EmbeddedS3Server s3;


    @Test
    void aChunkTheRelayFailsOnIsAnswered200CountedAsInternalErrorAndKeptInQuarantine() throws IOException {
        byte[] envelope = Envelopes.withItem(Envelopes.header(), "{\"type\":\"profile_chunk\"}",
                Envelopes.chunkPayload());
        RelayClient.Answer answer = new RelayClient(server.getURI()).post(PATH, envelope, "X-Sentry-Auth", AUTH);
        assertEquals(200, answer.status(), answer.raw());

        PrometheusScrape metrics = PrometheusScrape.of(server.getURI());
        assertEquals(1, metrics.value("relay_chunks_rejected_total", "reason", "internal_error"));
        assertEquals(0, metrics.value("relay_chunks_rejected_total", "reason", "profiling_invalid_json"));

        Path bucket = s3.directory().orElseThrow().resolve("chunk-relay");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(bucket)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertEquals(1, files.size(), "only the quarantined payload is stored: " + files);
        Path kept = files.get(0);
        assertTrue(bucket.relativize(kept).toString().startsWith("quarantine/1/"), kept.toString());
        byte[] compressed = Files.readAllBytes(kept);
        byte[] payload = Zstd.decompress(compressed, (int) Zstd.getFrameContentSize(compressed));
        assertArrayEquals(Envelopes.chunkPayload(), payload);
    }

    /** A translator with a bug: it throws on every chunk. */
    @Factory
    @Requires(property = "test.translator", value = "failing")
    static class FailingTranslatorFactory {
        @Singleton
        @Replaces(value = ChunkTranslator.class, factory = ChunkProcessingFactory.class)
        ChunkTranslator failingTranslator() {
            return new ChunkTranslator("chunk-relay", "test") {
                @Override
                public Translated translateWithLinks(ProfileChunk chunk, TranslationContext context) {
                    throw new IllegalStateException("a translator bug");
                }
            };
        }
    }
}
