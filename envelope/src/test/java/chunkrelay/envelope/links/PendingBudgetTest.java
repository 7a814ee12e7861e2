package chunkrelay.envelope.links;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_1;
import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_2;
import static chunkrelay.envelope.links.JavaCapture.JAVA_LINKED;
import static chunkrelay.envelope.links.JavaCapture.JAVA_TRANSACTION;
import static chunkrelay.envelope.links.JavaCapture.derived;
import static chunkrelay.envelope.links.JavaCapture.linkedBySpan;
import static chunkrelay.envelope.links.JavaCapture.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chunks waiting for their window are held in memory within {@code relay.links.max-pending-bytes}; past it only
 * their key waits and their Sentry form is read back when the window ends, counted, and linked the same.
 */
class PendingBudgetTest {
    /** Only for work the clock has already made due, handed out by another thread. */
    private static final Duration WAIT = Duration.ofSeconds(30);

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
        relay.bean(ChunkDerivations.class).runDue();
        Await.until("both chunks derived", WAIT, () -> relay.archivedChunks().size() == 2);
        derived(relay.archive(), relay.archivedChunks(), JAVA_CHUNK_1, JAVA_CHUNK_2).forEach((request, form) ->
                assertEquals(JAVA_LINKED.get(request),
                        linkedBySpan(form, 1).values().stream().mapToInt(Integer::intValue).sum(), request));
        assertEquals(0, metric(relay, "relay_derivations_pending_bytes"));
    }

    @Test
    void withinTheDefaultBudgetWaitingChunksAreHeldInMemoryAndNoneIsReadBack() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory(); RunningRelay relay = relay(s3)) {
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
