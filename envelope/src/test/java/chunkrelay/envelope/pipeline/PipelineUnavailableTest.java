package chunkrelay.envelope.pipeline;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;

import java.util.List;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A pipeline that cannot take chunks makes the relay answer 503, so the SDK keeps the envelope and retries. */
@MicronautTest
@Property(name = "test.pipeline", value = "unavailable")
class PipelineUnavailableTest {
    @Inject
    EmbeddedServer server;

    /** A pipeline whose archive is down. */
    @Singleton
    @Requires(property = "test.pipeline", value = "unavailable")
    @Replaces(ChunkPipeline.class)
    static class ArchiveDownPipeline implements ChunkPipeline {
        @Override
        public void accept(List<ProfileChunkItem> chunks) {
            throw new ChunkPipelineUnavailableException("archive is down");
        }
    }

    @Test
    void answers503WhenThePipelineIsUnavailable() {
        RelayClient.Answer answer = new RelayClient(server.getURI()).post(PATH, Envelopes.withChunk(),
                "X-Sentry-Auth", AUTH);
        assertEquals(503, answer.status());
        assertEquals("failed to queue envelope", answer.detail());
        assertEquals("[\"archive is down\"]", answer.causes());
    }

    @Test
    void acceptsEnvelopesWithoutChunksAnyway() {
        assertEquals(200, new RelayClient(server.getURI()).post(PATH,
                Envelopes.bytes(Envelopes.header() + "\n{\"type\":\"session\"}\n{}"), "X-Sentry-Auth", AUTH).status());
    }
}
