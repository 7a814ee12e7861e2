package chunkrelay.envelope.derivation;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.FailingStoreProxy;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * With no link window a chunk is derived before its answer; when the archive fails that derivation (here its server
 * answers the OTLP object's write as a full disk does), the chunk waits for a retry, and the relay itself hands that
 * retry out once it is due: the relay's clock moving is all it takes, no restart and no test calling it.
 */
class DerivationRetryWithoutWindowTest {
    /** Only for work the clock has already made due, handed out by the relay's own thread. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aDerivationTheArchiveFailsWithNoWindowIsRetriedByTheRelayOnceItsRetryIsDue() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             FailingStoreProxy disk = new FailingStoreProxy(s3.endpoint(), ".otlp.binpb");
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "0s",
                     "relay.storage.s3.endpoint", disk.endpoint().toString()))) {
            disk.failing(true);
            RelayClient.Answer answer = relay.client().post(PATH,
                    Envelopes.withItem(Envelopes.header(), "{\"type\":\"profile_chunk\"}", Envelopes.chunkPayload()),
                    "X-Sentry-Auth", AUTH);
            assertEquals(200, answer.status(), answer.raw());
            assertEquals(1, PrometheusScrape.of(relay.uri()).value("relay_derivations_failures_total"));
            assertEquals(1, relay.bean(ChunkDerivations.class).pendingCount(), "the chunk waits for its retry");

            disk.failing(false);
            relay.clock().advance(Duration.ofSeconds(4));
            Thread.sleep(5 * DerivationSchedule.TICK_MILLIS);
            assertEquals(0, relay.archivedChunks().size(), "not retried before its time");

            relay.clock().advance(Duration.ofSeconds(1));
            Await.until("the retried derivation", WAIT, () -> relay.archivedChunks().size() == 1);
            ArchivedChunk chunk = relay.archivedChunks().get(0);
            assertArrayEquals(Envelopes.chunkPayload(), relay.archive().readSentry(chunk));
            assertEquals(0, relay.bean(ChunkDerivations.class).pendingCount());
        }
    }
}
