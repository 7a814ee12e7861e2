package chunkrelay.envelope.health;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The health answer's linked and linkable samples with a link window ({@code test.clock: manual}): counted when each
 * chunk is linked, under the SDK and minute of its receipt, equal to the test's walk of the archived OTLP forms
 * ({@link SentChunks#links}), whether the chunks were linked when their window ended or at the relay's stop; a
 * chunk derived again (as replay does) is not counted again; one the recovery pass derives from its archived form
 * counts under its own {@code client_sdk}.
 */
@Tag("slow")
class LinkedSamplesRoutesTest {

    @Test
    void chunksLinkedWhenTheirWindowEndsCountTheirLinkedSamplesOnce() throws Exception {
        SentChunks sent = new SentChunks();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "30s"))) {
            Instant start = relay.clock().instant();
            HealthSends.send(HealthSends.all(sent), i -> relay.client());
            String range = rangeAround(start);
            assertEquals(Map.of(), SentChunks.links(health(relay, range)), "nothing linked inside the window");

            relay.clock().advance(Duration.ofSeconds(31));
            relay.bean(DerivationSchedule.class).runDue();
            ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
            Await.until(() -> derivations.pendingCount() + " chunks still waiting", Duration.ofSeconds(30),
                    () -> derivations.pendingCount() == 0);
            Map<String, SentChunks.Links> expected = sent.links(relay);
            assertTrue(expected.values().stream().mapToLong(SentChunks.Links::linkedSamples).sum() > 0, "linked");
            assertEquals(expected, SentChunks.links(health(relay, range)));
        }
    }

    @Test
    void chunksLinkedAtStopAreCountedAndShared() throws Exception {
        SentChunks sent = new SentChunks();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            String range;
            try (RunningRelay relay = RunningRelay.start(s3, Map.of("relay.links.window", "10m"))) {
                range = rangeAround(Instant.now());
                HealthSends.send(HealthSends.all(sent), i -> relay.client());
            }
            try (RunningRelay reader = RunningRelay.start(s3, Map.of())) {
                Map<String, SentChunks.Links> expected = sent.links(reader);
                assertTrue(expected.values().stream().mapToLong(SentChunks.Links::linkedSamples).sum() > 0, "linked");
                assertEquals(expected, SentChunks.links(health(reader, range)));
            }
        }
    }

    @Test
    void aChunkDerivedAgainAsReplayDoesIsNotCountedTwice() throws Exception {
        SentChunks sent = new SentChunks();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            HealthSends.send(HealthSends.all(sent), i -> relay.client());
            Map<String, SentChunks.Links> expected = sent.links(relay);
            List<ArchivedChunk> archived = relay.archivedChunks();
            String range = rangeFromFirstDay(archived);
            assertEquals(expected, SentChunks.links(health(relay, range)));

            ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
            for (ArchivedChunk chunk : archived) {
                derivations.deriveUnderived(1, chunk.key(), false);
            }
            assertEquals(archived.size(), PrometheusScrape.of(relay.uri())
                    .value("relay_derivations_duplicates_total"), "each derived again");
            assertEquals(expected, SentChunks.links(health(relay, range)));
        }
    }

    @Test
    void aChunkTheRecoveryPassDerivesFromItsArchivedFormCountsUnderItsOwnSdk() throws Exception {
        SentChunks sent = new SentChunks();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            HealthSends.send(HealthSends.all(sent), i -> relay.client());
            Map<String, SentChunks.Links> atReceipt = sent.links(relay);
            List<ArchivedChunk> archived = relay.archivedChunks();
            String range = rangeFromFirstDay(archived);

            // the OTLP forms lost, as when a relay stopped without deriving: each is derived from its Sentry form
            String prefix = relay.archive().settings().prefix();
            ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
            for (ArchivedChunk chunk : archived) {
                relay.archive().store().deleteObject(chunk.otlpObjectKey().substring(prefix.length()));
                derivations.deriveUnderived(1, chunk.key(), false);
            }
            // the recorded chunks name their SDK in client_sdk, so the recovery counts under the SDK of the receipt
            Map<String, SentChunks.Links> recovered = sent.links(relay);
            Map<String, SentChunks.Links> expected = new TreeMap<>(atReceipt);
            recovered.forEach((sdk, links) -> expected.merge(sdk, links, (a, b) -> new SentChunks.Links(
                    a.linkedSamples() + b.linkedSamples(), a.linkableSamples() + b.linkableSamples())));
            assertEquals(expected, SentChunks.links(health(relay, range)));
        }
    }

    /** From the first day of the chunks' samples, where one counted under its last sample's minute would fall. */
    private static String rangeFromFirstDay(List<ArchivedChunk> archived) {
        LocalDate firstDay = archived.stream().map(c -> c.key().day()).min(LocalDate::compareTo).orElseThrow();
        return "from=" + firstDay.atStartOfDay(ZoneOffset.UTC).toEpochSecond() + "&to="
                + (Instant.now().getEpochSecond() + 300);
    }

    private static String rangeAround(Instant start) {
        return "from=" + (start.getEpochSecond() - 60) + "&to=" + (start.getEpochSecond() + 300);
    }

    private static JsonNode health(RunningRelay relay, String range) {
        RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?" + range);
        assertEquals(200, answer.status(), answer.raw());
        return answer.body();
    }
}
