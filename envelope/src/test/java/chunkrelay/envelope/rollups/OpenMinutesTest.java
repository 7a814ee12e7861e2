package chunkrelay.envelope.rollups;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live fleet (chunks dated now, sent every few seconds, derived after the 30 s link window) asked for ranges that
 * end now while its chunks arrive: every answer is 200 and equals the test's own walk of the archived OTLP forms,
 * with a raw-read cap far below the chunks of the minutes not rolled up yet, so that only the partial rollups of the
 * open minutes can answer; once the fleet stops and its minutes settle, the run's range holds every chunk sent.
 */
@Tag("slow")
class OpenMinutesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final int FLEET = 20;
    private static final Duration STEP = Duration.ofSeconds(5);
    /** 10 s chunks of one sample every half second. */
    private static final int SAMPLES_PER_CHUNK = 20;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);

    @Test
    void rangesEndingNowWhileChunksArriveEqualTheWalkOfTheArchivedChunks() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "30s", "relay.rollups.interval", "1h", "relay.views.max-chunks", "30"))) {
            runFleet(relay, 48);
        }
    }

    @Test
    void partialsOverTheirMemoryBudgetLeaveTheirChunksToBeReadWholeAndAnswersStayExact() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.links.window", "30s", "relay.rollups.interval", "1h", "relay.rollups.open-max-bytes", "1",
                     "relay.views.max-chunks", "5000"))) {
            // a chunk left out of a partial is no longer named as waiting: were it, answers would miss its samples
            runFleet(relay, 24);
        }
    }

    /**
     * {@code steps} of 5 s of the fleet sending, the builder every 10 s, ranges ending now asked every 15 s and
     * compared with the walk; then the fleet stops, and the run's range must hold every chunk sent.
     */
    private static void runFleet(RunningRelay relay, int steps) throws Exception {
        ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
        RollupBuilder builder = relay.bean(RollupBuilder.class);
        Random random = new Random(11);
        long runStart = ChunkTimeIndex.minuteOf(nanos(relay.clock().instant()));
        Deque<Long> sentAt = new ArrayDeque<>();
        int sent = 0;
        for (int step = 1; step <= steps; step++) {
            relay.clock().advance(STEP);
            long now = nanos(relay.clock().instant());
            // half the fleet ends a 10 s chunk every 5 s: two chunks a second
            for (int p = step % 2; p < FLEET; p += 2) {
                send(relay, p, now - 10 * SECOND);
                sent++;
                sentAt.add(now);
            }
            derive(derivations, sentAt, now);
            if (step % 2 == 0) {
                builder.runOnce();
            }
            if (step % 3 == 0) {
                long to = Math.floorDiv(now, SECOND) * SECOND;
                List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
                // the page's default range, the last five minutes, and a range from a random minute of the run
                FleetAnswers.assertSameAnswer(relay, archived, ChunkTimeIndex.minuteOf(to - 60 * MINUTE), to, "", 60);
                FleetAnswers.assertSameAnswer(relay, archived, ChunkTimeIndex.minuteOf(to) - 5 * MINUTE, to, "", 1);
                long from = runStart - MINUTE * random.nextInt(2)
                        + MINUTE * random.nextInt((int) ((to - runStart) / MINUTE) + 1);
                String filter = switch (step % 4) {
                    case 0 -> "&release=app@2.0.0";
                    case 1 -> "&profiler_id=" + FleetChunks.profilerId(random.nextInt(FLEET));
                    case 2 -> "&thread_id=2";
                    default -> "";
                };
                FleetAnswers.assertSameAnswer(relay, archived, Math.min(from, ChunkTimeIndex.minuteOf(to)), to,
                        filter, 10);
            }
        }

        // the fleet stops: its last chunks leave their window, their minutes settle and are rolled up
        for (int step = 0; step < 36; step++) {
            relay.clock().advance(STEP);
            derive(derivations, sentAt, nanos(relay.clock().instant()));
        }
        builder.runOnce();
        List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
        assertEquals(sent, archived.size(), "every acknowledged chunk is derived");
        long end = nanos(relay.clock().instant());
        FleetAnswers.assertSameAnswer(relay, archived, runStart, end, "", 60);
        RelayClient.Answer collapsed = relay.client().get("/api/v1/projects/1/profile?format=collapsed&from="
                + Instant.ofEpochSecond(0, runStart) + "&to=" + Instant.ofEpochSecond(0, end));
        long samples = collapsed.raw().lines().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
        assertEquals((long) sent * SAMPLES_PER_CHUNK, samples, "the run's range holds every chunk's samples");
        assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.startsWith("rollups/1/")), "rolled up");
    }

    private static void send(RunningRelay relay, int profiler, long startNanos) {
        byte[] chunk = CHUNKS.chunk(profiler, FleetChunks.release(profiler, FLEET), startNanos, SAMPLES_PER_CHUNK);
        assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                FleetChunks.envelope(chunk)).status());
    }

    /** Derives what the clock's move brought to the end of its window, and waits until that is done. */
    private static void derive(ChunkDerivations derivations, Deque<Long> sentAt, long now)
            throws InterruptedException {
        while (!sentAt.isEmpty() && sentAt.peek() + 30 * SECOND <= now) {
            sentAt.poll();
        }
        derivations.runDue();
        Await.until(() -> "chunks past their window derived: " + derivations.pendingCount() + " pending, "
                + sentAt.size() + " in their window", Duration.ofSeconds(30),
                () -> derivations.pendingCount() == sentAt.size());
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
