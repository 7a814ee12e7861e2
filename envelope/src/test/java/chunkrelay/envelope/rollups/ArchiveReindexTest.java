package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.ObjectStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An archive written before the index by time (its chunks without index entries, late queue or rollups) is brought
 * up to date by the {@code reindex} command's work: every chunk filed again, every settled minute and hour rolled
 * up, and the views answer its ranges as they did from the chunks.
 */
@Tag("slow")
class ArchiveReindexTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);

    @Test
    void reindexFilesEveryChunkAndBuildsTheRollupsThatAnswerAsTheChunksDid() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "0s",
                     "relay.rollups.interval", "1h"))) {
            long start = Math.floorDiv(nanos(relay.clock().instant()), HOUR) * HOUR - 3 * HOUR;
            for (int p = 0; p < 2; p++) {
                for (int c = 0; c < 75; c++) {
                    byte[] chunk = CHUNKS.chunk(p, FleetChunks.release(p, 2), start + c * MINUTE + p * SECOND, 40);
                    assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                            FleetChunks.envelope(chunk)).status());
                }
            }
            String range = "from=" + Instant.ofEpochSecond(0, start) + "&to=" + Instant.ofEpochSecond(0, start + 2 * HOUR);
            String fromChunks = collapsed(relay.client(), range);
            ObjectStore store = relay.bean(ObjectStore.class);
            List<String> indexed = store.listObjects("index/");
            for (String prefix : List.of("index/", "late/", "rollups/")) {
                store.listObjects(prefix).forEach(store::deleteObject);
            }

            LocalDate day = LocalDate.ofInstant(Instant.ofEpochSecond(0, start), ZoneOffset.UTC);
            ArchiveReindex.Summary summary = relay.bean(ArchiveReindex.class).reindex("1", day.minusDays(1),
                    day.plusDays(1));

            assertEquals(150, summary.indexed(), summary.describe());
            assertEquals(indexed, store.listObjects("index/"), "the same entries as at archive time");
            assertTrue(summary.minutes() >= 75 && summary.hours() >= 1, summary.describe());
            assertEquals(List.of(), store.listObjects("late/"), "nothing left for the builder");
            assertEquals(fromChunks, collapsed(relay.client(), range), "the range answers as it did");
        }
    }

    private static String collapsed(RelayClient client, String range) {
        RelayClient.Answer answer = client.get("/api/v1/projects/1/profile?format=collapsed&" + range);
        assertEquals(200, answer.status(), answer.raw());
        assertTrue(answer.raw().lines().count() > 5, answer.raw());
        return answer.raw();
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
