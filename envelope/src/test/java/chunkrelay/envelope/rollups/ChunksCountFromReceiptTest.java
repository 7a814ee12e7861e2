package chunkrelay.envelope.rollups;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.TimeBuckets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet just pointed at the relay: its chunks of the last two minutes are in every answer that does not filter by
 * trace or span 5 s after they were acknowledged, long before their 30 s link window ends, and exactly: the answers
 * taken then equal the test's own walk of the OTLP forms the relay derives and archives after the window.
 */
@Tag("slow")
class ChunksCountFromReceiptTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int FLEET = 60;
    private static final int SAMPLES_PER_CHUNK = 20;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);
    /** As shipped (30 s link window, 45 s settle, 500 chunks read whole at most) on a clock the test moves. */
    private static final Map<String, Object> SHIPPED = Map.of("test.clock", "manual", "relay.links.window", "30s",
            "relay.rollups.interval", "1h");

    @Test
    void chunksAcknowledgedFiveSecondsAgoAreInTheDefaultRangeExactlyBeforeTheirWindowEnds() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, SHIPPED)) {
            long now = seconds(nanos(relay.clock().instant()));
            int sent = 0;
            for (int p = 0; p < FLEET; p++) {
                for (long start = now - 120 * SECOND; start + 10 * SECOND <= now; start += 10 * SECOND) {
                    byte[] chunk = CHUNKS.chunk(p, FleetChunks.release(p, FLEET), start, SAMPLES_PER_CHUNK);
                    assertEquals(200, relay.client().post(
                            "/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                            FleetChunks.envelope(chunk)).status());
                    sent++;
                }
            }
            relay.clock().advance(Duration.ofSeconds(5));
            relay.bean(DerivationSchedule.class).runDue();
            assertEquals(sent, relay.bean(ChunkDerivations.class).pendingCount(), "every chunk still in its window");

            long to = seconds(nanos(relay.clock().instant()));
            // from, to and the timeline's step in seconds
            Map<String, long[]> ranges = new LinkedHashMap<>();
            ranges.put("the page's default range", new long[] {TimeBuckets.minuteOf(to - 3600 * SECOND), to, 60});
            ranges.put("the last 5 minutes", new long[] {to - 300 * SECOND, to, 1});
            ranges.put("a minute and a half inside", new long[] {to - 97 * SECOND, to - 7 * SECOND, 1});
            Map<String, FleetAnswers.Answer> early = new LinkedHashMap<>();
            for (Map.Entry<String, long[]> range : ranges.entrySet()) {
                for (String filter : List.of("", "&release=app@2.0.0")) {
                    early.put(range.getKey() + filter, FleetAnswers.ask(relay, range.getValue()[0],
                            range.getValue()[1], filter, range.getValue()[2]));
                }
            }
            // a trace filter reads chunks whole, and one not derived yet has no links: nothing before the window
            RelayClient.Answer traced = relay.client().get("/api/v1/projects/1/profile?format=collapsed&trace_id="
                    + "0123456789abcdef0123456789abcdef&from=" + Instant.ofEpochSecond(0, to - 20 * SECOND) + "&to="
                    + Instant.ofEpochSecond(0, to));
            assertEquals(200, traced.status(), traced.raw());
            assertEquals("", traced.raw());

            // the window ends: every chunk is derived and archived with its links, its minutes settle
            for (int step = 0; step < 20; step++) {
                relay.clock().advance(Duration.ofSeconds(5));
                relay.bean(DerivationSchedule.class).runDue();
            }
            ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
            Await.until(() -> derivations.pendingCount() + " chunks still pending", Duration.ofSeconds(60),
                    () -> derivations.pendingCount() == 0);
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
            assertEquals(sent, archived.size(), "every acknowledged chunk is derived");
            assertTrue(FleetAnswers.samples(archived) > 10_000, "the fleet sent samples");
            List<String> differ = new ArrayList<>();
            for (Map.Entry<String, long[]> range : ranges.entrySet()) {
                for (String filter : List.of("", "&release=app@2.0.0")) {
                    FleetAnswers.Answer walked = FleetAnswers.walk(archived, range.getValue()[0],
                            range.getValue()[1], filter, range.getValue()[2]);
                    assertTrue(walked.chunks() > 0, range.getKey() + filter + " holds chunks");
                    if (!walked.equals(early.get(range.getKey() + filter))) {
                        differ.add(range.getKey() + filter);
                    }
                }
            }
            assertEquals(List.of(), differ, "answers taken 5 s after receipt that differ from the archived forms");
        }
    }

    private static long seconds(long nanos) {
        return Math.floorDiv(nanos, SECOND) * SECOND;
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
