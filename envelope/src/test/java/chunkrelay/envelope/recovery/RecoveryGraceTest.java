package chunkrelay.envelope.recovery;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recovery pass's grace on the relay's clock, moved by the test ({@code test.clock: manual}): a chunk found
 * undelivered is sent only once it has stayed so for the grace, and once.
 */
class RecoveryGraceTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration GRACE = Duration.ofMinutes(5);

    @Test
    void aChunkFoundUndeliveredIsSentOnceAndOnlyAfterTheGraceOnTheRelaysClock() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start().answering(503);
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "0s",
                     "relay.otlp.endpoint", receiver.endpoint(),
                     "relay.otlp.max-attempts", 1,
                     // the test runs every pass itself
                     "relay.recovery.interval", "1h",
                     "relay.recovery.grace", GRACE.toString(),
                     // the recorded fixtures' first samples lie in the past
                     "relay.recovery.days", "100000"))) {
            assertEquals(200, relay.client().replay(Fixtures.sdkRequests().stream()
                    .filter(r -> r.name().equals("node-11.1.0-long/001")).findFirst().orElseThrow()).status());
            Await.until("the forwarding refused", WAIT, () -> receiver.attempts() == 1);
            receiver.answering(200);
            RecoveryPass pass = relay.bean(RecoveryPass.class);

            pass.run();
            relay.clock().advance(GRACE.minusSeconds(1));
            pass.run();
            assertEquals(List.of(), receiver.received(), "undelivered for less than the grace");

            relay.clock().advance(Duration.ofSeconds(1));
            pass.run();
            assertEquals(1, receiver.received().size());
            assertTrue(relay.archivedChunks().get(0).delivered());

            relay.clock().advance(GRACE.multipliedBy(3));
            pass.run();
            assertEquals(1, receiver.received().size(), "delivered once");
        }
    }
}
