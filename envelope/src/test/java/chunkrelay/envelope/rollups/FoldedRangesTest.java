package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.views.RangeReader;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.view.ViewFilter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet that has run for five hours, rolled up: a range of whole minutes (the page's default range, the last hour,
 * the last six hours, random ones) is answered from at most 9 minute and 5 ten-minute rollups at each end and one per
 * whole hour inside it, however long the fleet has run, and equals the test's walk of the archived OTLP forms; a chunk
 * sent late into a settled ten minutes is in the next answer and, after the builder's round, in the ten minutes'
 * rollup, which answers again.
 */
@Tag("slow")
class FoldedRangesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final int FLEET = 3;
    /** Reads at one end of a range at most: 9 minutes and 5 ten minutes. */
    private static final int EDGE_READS = 14;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);

    @Test
    void aRangeOfAFleetThatRanForHoursIsAnsweredFromABoundedNumberOfRollupsAndEqualsTheWalk() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "0s",
                     "relay.rollups.interval", "1h", "relay.views.max-chunks", "40"))) {
            long now = relay.clock().instant().getEpochSecond() * SECOND;
            // five hours ending 7 minutes into a ten minutes, all settled
            long end = Math.floorDiv(now - 3 * MINUTE, 10 * MINUTE) * 10 * MINUTE - 3 * MINUTE;
            long start = end - 5 * HOUR;
            for (long at = start; at < end; at += MINUTE) {
                for (int p = 0; p < FLEET; p++) {
                    send(relay, p, at + p * 7 * SECOND);
                }
            }
            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.matches("rollups/1/.*/t[0-9]{3}0\\..*")),
                    "ten-minute rollups are built");
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);

            // the page's default range: the hour before the fleet's end from the start of its first minute
            long last = end + MINUTE;
            assertBounded(relay, archived, last - HOUR, last);
            assertBounded(relay, archived, last - 6 * HOUR, last);
            Random random = new Random(48);
            for (int round = 0; round < 6; round++) {
                long from = start + random.nextInt(150) * MINUTE;
                long to = from + (20 + random.nextInt(150)) * MINUTE;
                assertBounded(relay, archived, from, Math.min(to, last));
            }

            // a late chunk into a settled ten minutes (a minute into it): read whole until the builder takes it in,
            // then answered from that ten minutes' rollup, which the range holds whole
            long lateMinute = start + 2 * HOUR + 14 * MINUTE;
            send(relay, FLEET, lateMinute + 20 * SECOND);
            archived = FleetAnswers.Archived.all(relay);
            FleetAnswers.assertSameAnswer(relay, archived, lateMinute - 12 * MINUTE, lateMinute + 30 * MINUTE, "", 60);
            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().noneMatch(k -> k.startsWith("late/1/")),
                    "the builder took the late chunk into its minute, ten minutes, hour and day");
            assertBounded(relay, archived, lateMinute - 12 * MINUTE, lateMinute + 30 * MINUTE);
        }
    }

    /** The range is answered from at most the reads its ends and whole hours need, and equals the walk. */
    private static void assertBounded(RunningRelay relay, List<FleetAnswers.Archived> archived, long from, long to)
            throws Exception {
        RangeReader.Answer answer = relay.bean(RangeReader.class).merge(1, ViewFilter.between(from, to), null);
        long wholeHours = (to - from) / HOUR;
        assertEquals(0, answer.chunksRead(), "every minute of the range is rolled up");
        assertTrue(answer.rollupsRead() <= 2 * EDGE_READS + wholeHours, (to - from) / MINUTE + " minutes read "
                + answer.rollupsRead() + " rollups");
        FleetAnswers.assertSameAnswer(relay, archived, from, to, "", 60);
    }

    private static void send(RunningRelay relay, int profiler, long startNanos) {
        byte[] chunk = CHUNKS.chunk(profiler, FleetChunks.release(profiler, FLEET + 1), startNanos, 80);
        assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                FleetChunks.envelope(chunk)).status());
    }
}
