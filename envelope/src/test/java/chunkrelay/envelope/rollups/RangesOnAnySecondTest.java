package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranges that start and end on any second, as a dashboard's "last 5 minutes" or a dragged timeline asks them, with no
 * chunk allowed to be read whole ({@code relay.views.max-chunks: 0}): while a live fleet sends, the edge minutes come
 * from the partials of the open minutes, split per second; once its minutes have settled, from each minute's
 * per-second detail. Every answer equals the test's own walk of the archived OTLP forms (of the chunks acknowledged
 * before it was asked, once all are archived), with and without thread, release and profiler filters, on timelines
 * of one second and coarser.
 */
@Tag("slow")
class RangesOnAnySecondTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int FLEET = 20;
    private static final Duration STEP = Duration.ofSeconds(5);
    private static final int SAMPLES_PER_CHUNK = 20;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);
    /** The shipped link window on a clock the test moves, the builder run by the test, no chunk read whole. */
    private static final Map<String, Object> NO_CHUNK_READ_WHOLE = Map.of("test.clock", "manual",
            "relay.links.window", "30s", "relay.rollups.interval", "1h", "relay.views.max-chunks", "0");

    @Test
    void rangesCutOnAnySecondEqualTheWalkOfTheArchivedChunksWithNoChunkReadWhole() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, NO_CHUNK_READ_WHOLE)) {
            Deque<Long> sentAt = new ArrayDeque<>();
            Random random = new Random(17);
            long runStart = seconds(nanos(relay.clock().instant()) - 5 * SECOND);
            int sent = 0;
            Set<String> acknowledged = new HashSet<>();
            FleetAnswers.AskedWhileSending asked = new FleetAnswers.AskedWhileSending();
            for (int step = 1; step <= 36; step++) {
                relay.clock().advance(STEP);
                long now = nanos(relay.clock().instant());
                for (int p = step % 2; p < FLEET; p += 2) {
                    send(relay, p, now - 10 * SECOND);
                    acknowledged.add(CHUNKS.chunkId(p, now - 10 * SECOND));
                    sent++;
                    sentAt.add(now);
                }
                LiveFleet.deriveWindowsEnded(relay, sentAt);
                if (step % 2 == 0) {
                    relay.bean(RollupBuilder.class).runOnce();
                }
                if (step % 3 == 0) {
                    long to = seconds(now);
                    // what a dashboard's "last 5 minutes" sends, and a range from a second of the run to now
                    asked.ask(relay, acknowledged, to - 300 * SECOND, to, "", 1);
                    long from = runStart + SECOND * random.nextInt((int) ((to - runStart) / SECOND));
                    asked.ask(relay, acknowledged, from, to, filter(step / 3, random), 1);
                    // both ends inside minutes of the run, settled or open
                    long end = from + SECOND * (1 + random.nextInt((int) ((to - from) / SECOND)));
                    asked.ask(relay, acknowledged, from, end, filter(step / 3 + 1, random), 10);
                }
            }

            // the fleet stops: its last chunks leave their window, every minute settles and is rolled up
            for (int step = 0; step < 36; step++) {
                relay.clock().advance(STEP);
                LiveFleet.deriveWindowsEnded(relay, sentAt);
            }
            relay.bean(RollupBuilder.class).runOnce();
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
            assertEquals(sent, archived.size(), "every acknowledged chunk is derived");
            asked.assertEachEqualsTheWalk(archived);
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.matches("rollups/1/.*/s[0-9]{4}\\.[0-9]+")),
                    "settled minutes have a per-second detail");
            long end = seconds(nanos(relay.clock().instant()));
            for (int round = 0; round < 12; round++) {
                long from = runStart + SECOND * random.nextInt((int) ((end - runStart) / SECOND));
                long to = from + SECOND * (1 + random.nextInt((int) ((end - from) / SECOND)));
                FleetAnswers.assertSameAnswer(relay, archived, from, to, filter(round, random), round % 2 == 0 ? 1 : 7);
            }
            // one second, the finest range the API takes
            FleetAnswers.assertSameAnswer(relay, archived, runStart + 61 * SECOND, runStart + 62 * SECOND, "", 1);
        }
    }

    /** None, a release, a profiler or a thread, in turn. */
    private static String filter(int turn, Random random) {
        return switch (turn % 4) {
            case 0 -> "";
            case 1 -> "&release=app@2.0.0";
            case 2 -> "&profiler_id=" + FleetChunks.profilerId(random.nextInt(FLEET));
            default -> "&thread_id=2";
        };
    }

    private static void send(RunningRelay relay, int profiler, long startNanos) {
        LiveFleet.send(relay, CHUNKS, FLEET, profiler, startNanos, SAMPLES_PER_CHUNK);
    }

    private static long seconds(long nanos) {
        return Math.floorDiv(nanos, SECOND) * SECOND;
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
