package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ClientSdk;
import chunkrelay.envelope.testing.Envelopes;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The chunk id and platform read ahead of a full parse, for rate-limit categories and log lines. */
class ChunkPeekTest {

    @Test
    void readsTopLevelChunkIdAndPlatformSkippingNestedValues() {
        ChunkPeek peek = ChunkPeek.of(Envelopes.bytes(
                "{\"profile\":{\"platform\":\"nested\",\"chunk_id\":\"x\"},\"platform\":\"cocoa\",\"chunk_id\":\"abc\"}"));
        assertEquals("abc", peek.chunkId());
        assertEquals("cocoa", peek.platform());
    }

    @Test
    void givesNullsForWhatItCannotReadWithoutThrowing() {
        assertEquals(new ChunkPeek(null, null), ChunkPeek.of(Envelopes.bytes("[1,2]")));
        assertEquals(new ChunkPeek(null, "node"), ChunkPeek.of(Envelopes.bytes("{\"platform\":\"node\",\"chunk_id\":")));
        assertEquals(new ChunkPeek(null, null), ChunkPeek.of(new byte[0]));
    }

    @Test
    void cutsLongValuesBeforeTheyReachALogLine() {
        ChunkPeek peek = ChunkPeek.of(Envelopes.bytes("{\"event_id\":\"" + "a".repeat(500) + "\"}"));
        assertEquals("a".repeat(64) + "...", peek.chunkId());
        assertNull(peek.platform());
    }

    @Test
    void readsTheClientSdkPastTheProfileAndNothingFromWhatIsNotAnObject() {
        ClientSdk sdk = ChunkPeek.clientSdk(Envelopes.bytes("{\"profile\":{\"client_sdk\":{\"name\":\"nested\"}},"
                + "\"client_sdk\":{\"packages\":[{\"name\":\"p\"}],\"name\":\"sentry.python\",\"version\":\"2.75.0\"}}"));
        assertEquals(new ClientSdk("sentry.python", "2.75.0"), sdk);
        assertEquals(new ClientSdk(null, "1"), ChunkPeek.clientSdk(Envelopes.bytes("{\"client_sdk\":{\"name\":3,\"version\":\"1\"}}")));
        assertNull(ChunkPeek.clientSdk(Envelopes.bytes("[1,2]")));
        assertNull(ChunkPeek.clientSdk(Envelopes.bytes("{\"client_sdk\":\"sentry.python\"}")));
        assertNull(ChunkPeek.clientSdk(Envelopes.bytes("{\"chunk_id\":")));
    }
}
