package chunkrelay.envelope.views;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RunningRelay;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Recorded chunks sent again under another chunk id and release, as an SDK of a new release of the same program
 * would send them: the same samples, so a differential profile can be computed by hand.
 */
final class ReleasedCopies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ReleasedCopies() {
    }

    /** Sends the profile_chunk of a recorded request (e.g. {@code java-8.43.0/001}) as {@code chunkId} of {@code release}. */
    static void send(RunningRelay relay, String request, String chunkId, String release) {
        RecordedChunk recorded = Fixtures.sdkChunks().stream().filter(c -> c.request().equals(request)).findFirst()
                .orElseThrow();
        try {
            ObjectNode payload = (ObjectNode) JSON.readTree(recorded.payload());
            payload.put("chunk_id", chunkId).put("release", release);
            byte[] body = JSON.writeValueAsBytes(payload);
            ObjectNode item = recorded.itemHeader().deepCopy();
            item.put("length", body.length);
            assertEquals(200, relay.client().post(Envelopes.PATH, Envelopes.withItem(Envelopes.header(),
                    item.toString(), body), "X-Sentry-Auth", Envelopes.AUTH).status(), request + " as " + release);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
