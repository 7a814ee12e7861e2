package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Six hours of a fleet sent at once into minutes that settled long ago (a backfill, as after an SDK's offline
 * cache or a relay's outage): while the builder catches up, every answer of the six hours is either 200 and exact or
 * 503 with {@code Retry-After}, never a 400; once it has caught up the answer is 200 and equals the test's walk.
 */
@Tag("slow")
class BackfillViewsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final int FLEET = 4;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);

    @Test
    void whileTheBuilderCatchesUpAnswersAre200AndExactOr503WithRetryAfterNever400() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.views.max-chunks", "60"))) {
            long now = relay.clock().instant().getEpochSecond() * SECOND;
            long start = Math.floorDiv(now, HOUR) * HOUR - 7 * HOUR;
            long end = start + 6 * HOUR;
            int sent = 0;
            for (long at = start; at < end; at += MINUTE) {
                for (int p = 0; p < FLEET; p++) {
                    byte[] chunk = CHUNKS.chunk(p, FleetChunks.release(p, FLEET), at + p * 3 * SECOND, 80);
                    assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                            FleetChunks.envelope(chunk)).status());
                    sent++;
                }
            }
            String range = "/api/v1/projects/1/profile?format=collapsed&from=" + Instant.ofEpochSecond(0, start)
                    + "&to=" + Instant.ofEpochSecond(0, end);

            RelayClient.Answer behind = relay.client().get(range);
            assertEquals(503, behind.status(), "nothing is rolled up yet: " + behind.raw());
            assertEquals("10", behind.headers().firstValue("Retry-After").orElseThrow());

            // with no link window every chunk is derived before its 200
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
            assertEquals(sent, archived.size());
            long kept = FleetAnswers.samples(archived);

            // the builder's round on another thread, the six hours asked meanwhile
            CompletableFuture<Void> round = CompletableFuture.runAsync(() -> relay.bean(RollupBuilder.class).runOnce());
            int answered = 0;
            int waited = 0;
            while (!round.isDone()) {
                RelayClient.Answer answer = relay.client().get(range);
                assertTrue(answer.status() == 200 || answer.status() == 503, answer.status() + " " + answer.raw());
                if (answer.status() == 503) {
                    assertTrue(answer.headers().firstValue("Retry-After").isPresent(), "503 says when to retry");
                    waited++;
                } else {
                    assertEquals(kept, samples(answer), "a 200 while catching up is exact");
                    answered++;
                }
            }
            round.get(5, TimeUnit.MINUTES);
            assertTrue(answered + waited > 0, "asked while the builder caught up");

            FleetAnswers.assertSameAnswer(relay, archived, start, end, "", 3600);
            FleetAnswers.assertSameAnswer(relay, archived, start + 17 * MINUTE, end - 2 * HOUR, "&thread_id=1", 60);
        }
    }

    private static long samples(RelayClient.Answer collapsed) {
        return collapsed.raw().lines().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
