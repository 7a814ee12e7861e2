package chunkrelay.envelope.links;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_1;
import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_2;
import static chunkrelay.envelope.links.JavaCapture.JAVA_LINKED;
import static chunkrelay.envelope.links.JavaCapture.JAVA_TRANSACTION;
import static chunkrelay.envelope.links.JavaCapture.derived;
import static chunkrelay.envelope.links.JavaCapture.linkedBySpan;
import static chunkrelay.envelope.links.JavaCapture.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chunks waiting for their window are held in memory within {@code relay.links.max-pending-bytes}, as OTLP objects
 * within {@code relay.links.max-pending-object-bytes} and as compressed bytes past it; past the first only their key
 * waits and their Sentry form is read back when the window ends, counted, and linked the same. Every way archives
 * the same bytes.
 */
class PendingBudgetTest {
    /** Only for work the clock has already made due, handed out by another thread. */
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String NODE_CHUNK = "node-11.1.0-long/001";

    private static RunningRelay relay(EmbeddedS3Server s3, String... more) {
        Map<String, Object> properties = new HashMap<>(Map.of("test.clock", "manual", "relay.links.window", "3s"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return RunningRelay.start(s3, properties);
    }

    private static double metric(RunningRelay relay, String name) {
        return PrometheusScrape.of(relay.uri()).valueOrZeroBeforeFirstUse(name);
    }

    /** Ends the window of the two recorded Java chunks sent; checks each chunk's links. */
    private static void deriveAndCheckLinks(RunningRelay relay) throws Exception {
        assertEquals(2, relay.bean(ChunkDerivations.class).pendingCount());
        relay.clock().advance(Duration.ofSeconds(3));
        relay.bean(DerivationSchedule.class).runDue();
        Await.until("both chunks derived", WAIT, () -> relay.archivedChunks().size() == 2);
        derived(relay.archive(), relay.archivedChunks(), JAVA_CHUNK_1, JAVA_CHUNK_2).forEach((request, form) ->
                assertEquals(JAVA_LINKED.get(request),
                        linkedBySpan(form, 1).values().stream().mapToInt(Integer::intValue).sum(), request));
        assertEquals(0, metric(relay, "relay_derivations_pending_bytes"));
    }

    /** The OTLP form each request's chunk was archived with, as archived, by a relay with these properties. */
    private static Map<String, byte[]> archivedOtlp(List<String> requests, String... properties) throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory(); RunningRelay relay = relay(s3, properties)) {
            for (String request : requests) {
                send(relay.client(), request);
            }
            relay.clock().advance(Duration.ofSeconds(3));
            relay.bean(DerivationSchedule.class).runDue();
            Await.until("every chunk derived", WAIT, () -> relay.archivedChunks().size() == 3);
            Map<String, byte[]> otlp = new TreeMap<>();
            for (ArchivedChunk chunk : relay.archivedChunks()) {
                otlp.put(chunk.key().chunkId(), relay.archive().readOtlp(chunk));
            }
            return otlp;
        }
    }

    @Test
    void withinTheDefaultBudgetsWaitingChunksAreHeldAsOtlpObjectsAndNoneIsReadBack() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory(); RunningRelay relay = relay(s3)) {
            send(relay.client(), JAVA_CHUNK_1);
            double held = metric(relay, "relay_derivations_pending_bytes");
            assertTrue(held > 100_000 && held < 1_000_000, "the Java chunk waits as its object: " + held + " bytes");
            send(relay.client(), JAVA_TRANSACTION);
            send(relay.client(), JAVA_CHUNK_2);
            deriveAndCheckLinks(relay);
            assertEquals(0, metric(relay, "relay_derivations_read_back_total"));
        }
    }

    @Test
    void aChunkLinkedFromItsObjectIsArchivedByteForByteAsOneLinkedFromItsCompressedBytesOrReadBack()
            throws Exception {
        // the two Java chunks link to the transaction's spans; the Node chunk has none and is archived unlinked
        List<String> requests = List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2, NODE_CHUNK);
        Map<String, byte[]> fromObjects = archivedOtlp(requests);
        Map<String, byte[]> fromBytes = archivedOtlp(requests, "relay.links.max-pending-object-bytes", "1");
        Map<String, byte[]> readBack = archivedOtlp(requests, "relay.links.max-pending-bytes", "1");
        assertEquals(3, fromObjects.size());
        for (Map<String, byte[]> other : List.of(fromBytes, readBack)) {
            assertEquals(fromObjects.keySet(), other.keySet());
            fromObjects.forEach((chunk, otlp) -> assertArrayEquals(otlp, other.get(chunk), chunk));
        }
    }

    @Test
    void pastTheObjectBudgetWaitingChunksAreHeldAsCompressedBytesAndNoneIsReadBack() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = relay(s3, "relay.links.max-pending-object-bytes", "1")) {
            send(relay.client(), JAVA_CHUNK_1);
            double held = metric(relay, "relay_derivations_pending_bytes");
            assertTrue(held > 10_000 && held < 100_000, "the Java chunk waits compact: " + held + " bytes");
            send(relay.client(), JAVA_TRANSACTION);
            send(relay.client(), JAVA_CHUNK_2);
            deriveAndCheckLinks(relay);
            assertEquals(0, metric(relay, "relay_derivations_read_back_total"));
        }
    }

    @Test
    void chunksPastTheBudgetAreReadBackCountedAndLinkedAsThoseHeldInMemory() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = relay(s3, "relay.links.max-pending-bytes", "1")) {
            for (String request : List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2)) {
                send(relay.client(), request);
            }
            assertEquals(0, metric(relay, "relay_derivations_pending_bytes"));
            deriveAndCheckLinks(relay);
            assertEquals(2, metric(relay, "relay_derivations_read_back_total"));
        }
    }
}
