package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.ingest.ChunkProcessingFactory;
import chunkrelay.envelope.recovery.UnderivedSearch;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.UnderivedChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.retry.TestClock;
import chunkrelay.translate.TranslationContext;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chunk whose derivation the relay fails on (here, a translator with a bug) is not a client error: the client
 * gets 200, the chunk is counted as {@code internal_error}, and it stays archived in its Sentry form, underived, for
 * a fixed relay's recovery pass to derive; replay, deriving it again, decides the same.
 */
@MicronautTest
@Property(name = "test.translator", value = "failing")
@Property(name = "test.clock", value = "manual")
class DerivationFailureTest {
    @Inject
    EmbeddedServer server;

    @Inject
    ChunkArchive archive;

    @Inject
    UnderivedSearch search;

    @Inject
    Clock clock;

    @Test
    void aChunkTheRelayFailsToDeriveIsAnswered200CountedAsInternalErrorAndStaysArchivedUnderived() {
        byte[] envelope = Envelopes.withItem(Envelopes.header(), "{\"type\":\"profile_chunk\"}",
                Envelopes.chunkPayload());
        RelayClient.Answer answer = new RelayClient(server.getURI()).post(PATH, envelope, "X-Sentry-Auth", AUTH);
        assertEquals(200, answer.status(), answer.raw());

        PrometheusScrape metrics = PrometheusScrape.of(server.getURI());
        assertEquals(1, metrics.value("relay_chunks_rejected_total", "reason", "internal_error"));
        assertEquals(0, metrics.value("relay_chunks_rejected_total", "reason", "profiling_invalid_json"));

        List<UnderivedChunk> underived = new ArrayList<>();
        for (LocalDate day : archive.listDays("1")) {
            underived.addAll(archive.listUnderived("1", day));
        }
        assertEquals(1, underived.size(), underived.toString());
        assertArrayEquals(Envelopes.chunkPayload(), archive.readSentry(underived.get(0).key()).orElseThrow());
        assertEquals(List.of(), archive.store().listObjects(ArchiveLayout.QUARANTINE));

        // replay derives it the one way every route does, and that way decides the same outcome: counted, left;
        // replay takes it past the grace its own relay has, from when the bucket dated the Sentry form
        Duration toGrace = Duration.between(clock.instant(), underived.get(0).sentryWrittenAt()
                .plus(UnderivedSearch.RECOVERY_GRACE).plusSeconds(1));
        ((TestClock) clock).advance(toGrace.isNegative() ? Duration.ZERO : toGrace);
        LocalDate day = archive.listDays("1").get(0);
        assertEquals(new UnderivedSearch.ReplayDerivations(0, 1), search.deriveForReplay("1", day, day));
        assertTrue(PrometheusScrape.of(server.getURI()).value("relay_chunks_rejected_total", "reason",
                "internal_error") >= 2, "the failure counted as internal_error again");
        assertEquals(underived.get(0).key(), archive.listUnderived("1", day).get(0).key(),
                "the Sentry form stays archived, underived");
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
                public ExportProfilesServiceRequest translate(ProfileChunk chunk, TranslationContext context) {
                    throw new IllegalStateException("a translator bug");
                }

                @Override
                public Translated translateWithLinks(ProfileChunk chunk, TranslationContext context) {
                    throw new IllegalStateException("a translator bug");
                }
            };
        }
    }
}
