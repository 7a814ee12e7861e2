package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.ForkedRelay;
import chunkrelay.envelope.testing.RelayClient;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory held by all requests together is bounded: a body while it is buffered, a chunk by its working set (twice
 * its payload by default); over the budget the relay answers 503.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "relay.limits.max-buffered-chunk-bytes", value = "4194304")
@Tag("external")
class ChunkMemoryBudgetTest {
    @Inject
    EmbeddedServer server;

    @Test
    void answers503ForChunkLargerThanWhatTheBudgetHasLeft() {
        RelayClient client = new RelayClient(server.getURI());
        RelayClient.Answer answer = client.post(PATH, SizeLimitsTest.withPayload("profile_chunk", 1536 * 1024),
                "X-Sentry-Auth", AUTH);
        assertEquals(503, answer.status());
        assertEquals("failed to queue envelope", answer.detail());
        assertEquals("5", answer.header("Retry-After"));
    }

    @Test
    void givesTheBudgetBackAfterEachEnvelope() {
        RelayClient client = new RelayClient(server.getURI());
        for (int i = 0; i < 5; i++) {
            assertEquals(200, client.post(PATH, SizeLimitsTest.withPayload("profile_chunk", 700 * 1024),
                    "X-Sentry-Auth", AUTH).status(), "envelope " + i);
            assertEquals(200, client.post(PATH, Envelopes.withItem(Envelopes.header(), "{\"type\":\"profile_chunk\"}",
                    SizeLimitsTest.filled(700 * 1024)), "X-Sentry-Auth", AUTH).status(), "envelope " + i);
        }
    }

    @Test
    void aConfiguredBudgetReplacesTheDefaultShareOfTheHeap() {
        RelayLimits configured = EnvelopeFuzzTest.limits(200L << 20, 50L << 20, 1 << 20, 12345);
        assertEquals(12345, ChunkMemoryBudget.budgetBytes(configured));
    }

    @Test
    void aRelayWithASmallHeapAnswers503ToAChunkItCannotHoldAndStaysUp(@TempDir Path work) throws Exception {
        try (ForkedRelay relay = ForkedRelay.start(128, work)) {
            RelayClient client = new RelayClient(relay.base());
            // generated while it is sent: this test's own heap holds no 50 MiB body
            RelayClient.Answer refused = client.postStream(PATH, () -> DefaultLimitsTest.chunkEnvelope(50L << 20),
                    "X-Sentry-Auth", AUTH);
            assertEquals(503, refused.status(), refused.raw());
            assertEquals("failed to queue envelope", refused.detail());
            assertEquals("5", refused.header("Retry-After"));

            assertTrue(relay.alive());
            RelayClient.Answer small = client.post(PATH, Envelopes.withItem(Envelopes.header(),
                    "{\"type\":\"profile_chunk\"}", Envelopes.chunkPayload()), "X-Sentry-Auth", AUTH);
            assertEquals(200, small.status(), small.raw());
            assertTrue(!relay.log().contains("OutOfMemoryError"), "the relay ran out of memory");
        }
    }
}
