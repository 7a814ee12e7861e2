package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Project ids are unsigned 64-bit integers, as Relay reads them: one past {@code Long.MAX_VALUE} is an id like any
 * other, archived under its own decimal name (not the negative number a signed long would print) and answered by
 * the views under that name.
 */
class LargestProjectIdTest {
    /** 2^64 - 1, the largest id Relay reads. */
    private static final String PROJECT = "18446744073709551615";
    private static final String RANGE = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";

    @Test
    void theLargestUnsignedProjectIdIsArchivedAndAnsweredUnderItsOwnDecimalName() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            RecordedChunk chunk = Fixtures.sdkChunks().get(0);
            RelayClient.Answer answer = relay.client().post("/api/" + PROJECT + "/envelope/",
                    Envelopes.withItem(Envelopes.header(), chunk.itemHeader().toString(), chunk.payload()),
                    "X-Sentry-Auth", Envelopes.AUTH);
            assertEquals(200, answer.status(), answer.raw());

            List<ArchivedChunk> archived = relay.archivedChunks();
            assertEquals(1, archived.size());
            assertEquals(PROJECT, archived.get(0).key().projectId());
            assertTrue(relay.objects().keySet().stream().allMatch(key -> !key.contains("/-")),
                    "no object under a negative project: " + relay.objects().keySet());

            JsonNode chunks = relay.client().get("/api/v1/projects/" + PROJECT + "/chunks?" + RANGE).body()
                    .path("chunks");
            assertEquals(1, chunks.size(), chunks.toString());
        }
    }
}
