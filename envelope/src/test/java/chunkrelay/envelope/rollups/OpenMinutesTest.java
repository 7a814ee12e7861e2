package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.TimeBuckets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live fleet (chunks dated now, sent every few seconds, derived after the 30 s link window) asked for ranges that
 * end now while its chunks arrive: every answer is 200, with a raw-read cap far below the chunks of the minutes not
 * rolled up yet, so that only the partial rollups of the open minutes can answer; once the fleet stops and every chunk
 * is archived, each answer equals the test's own walk of the archived OTLP forms of the chunks acknowledged before
 * it was asked (those in their window counted from receipt), and the run's range holds every chunk sent.
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
    /**
     * The shipped link window on a clock the test moves; the builder only when the test runs it; a raw-read cap far
     * below the open minutes' chunks.
     */
    private static final Map<String, Object> LIVE = Map.of("test.clock", "manual", "relay.links.window", "30s",
            "relay.rollups.interval", "1h", "relay.views.max-chunks", "30");

    @Test
    void rangesEndingNowWhileChunksArriveEqualTheWalkOfTheArchivedChunks() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, LIVE)) {
            runFleet(List.of(relay), 48, true);
            // the builder (run while the minutes are open, as a relay's does every few seconds) takes what this
            // relay derived from its open minutes' rollups, never from the archive
            PrometheusScrape metrics = PrometheusScrape.of(relay.uri());
            double held = metrics.value("relay_rollups_minute_chunks_total", "from", "open_minute");
            double readBack = metrics.value("relay_rollups_minute_chunks_total", "from", "archive");
            assertTrue(held > 0, "chunks taken from open minutes");
            assertEquals(0, readBack, "chunks read back from the archive, with " + held + " taken from open minutes");
        }
    }

    @Test
    void replicasAnswerTheOpenMinutesFromEachOthersSharedPartials() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay a = RunningRelay.start(s3, LIVE);
             RunningRelay b = RunningRelay.start(s3, LIVE)) {
            // the cap is below the chunks either replica derives in the open minutes: each must read the other's
            runFleet(List.of(a, b), 24, true);
            a.bean(OpenMinutes.class).share();
            b.bean(OpenMinutes.class).share();
            assertTrue(a.objects().keySet().stream().noneMatch(k -> k.matches("rollups/1/.*/o[0-9]{4}\\..*")),
                    "the parts of settled minutes are removed");
        }
    }

    @Test
    void partialsOverTheirMemoryBudgetLeaveTheirChunksToBeReadWholeAndAnswersStayExact() throws Exception {
        Map<String, Object> overBudget = new java.util.HashMap<>(LIVE);
        overBudget.put("relay.rollups.open-max-bytes", "1");
        overBudget.put("relay.views.max-chunks", "5000");
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, overBudget)) {
            // a chunk left out of a partial is no longer named as waiting: were it, answers would miss its samples;
            // nor is it counted from receipt: it counts once derived, read whole
            runFleet(List.of(relay), 24, false);
            PrometheusScrape metrics = PrometheusScrape.of(relay.uri());
            assertEquals(0, metrics.value("relay_rollups_minute_chunks_total", "from", "open_minute"),
                    "no partial held a chunk: the builder read every one");
            assertTrue(metrics.value("relay_rollups_open_left_out_total", "when", "receipt") > 0,
                    "the chunks left out at receipt are counted");
        }
    }

    /**
     * {@code steps} of 5 s of the fleet sending (profiler p to relay p mod the relays), each relay deriving what
     * left its window and sharing its partials, the builders every 10 s, ranges ending now asked of each relay in turn
     * every 15 s and compared with the walk; then the fleet stops, and the run's range must hold every chunk sent.
     */
    private static void runFleet(List<RunningRelay> relays, int steps, boolean countedFromReceipt) throws Exception {
        RunningRelay first = relays.get(0);
        List<Deque<Long>> sentAt = new ArrayList<>();
        relays.forEach(r -> sentAt.add(new ArrayDeque<>()));
        Random random = new Random(11);
        // the minute the first chunk's samples start in: it ends 5 s after now and lasts 10 s
        long runStart = TimeBuckets.minuteOf(nanos(first.clock().instant()) - 5 * SECOND);
        int sent = 0;
        Set<String> acknowledged = new HashSet<>();
        FleetAnswers.AskedWhileSending asked = new FleetAnswers.AskedWhileSending();
        for (int step = 1; step <= steps; step++) {
            relays.forEach(r -> r.clock().advance(STEP));
            long now = nanos(first.clock().instant());
            // half the fleet ends a 10 s chunk every 5 s: two chunks a second
            for (int p = step % 2; p < FLEET; p += 2) {
                RunningRelay to = relays.get(p % relays.size());
                send(to, p, now - 10 * SECOND);
                acknowledged.add(CHUNKS.chunkId(p, now - 10 * SECOND));
                sent++;
                sentAt.get(p % relays.size()).add(nanos(to.clock().instant()));
            }
            for (int r = 0; r < relays.size(); r++) {
                LiveFleet.deriveWindowsEnded(relays.get(r), sentAt.get(r));
                relays.get(r).bean(OpenMinutes.class).share();
                if (step % 2 == 0) {
                    relays.get(r).bean(RollupBuilder.class).runOnce();
                }
            }
            if (step % 3 == 0) {
                RunningRelay relay = relays.get(step / 3 % relays.size());
                long to = Math.floorDiv(now, SECOND) * SECOND;
                Set<String> counted = countedFromReceipt ? acknowledged : FleetAnswers.Archived.all(first).stream()
                        .map(FleetAnswers.Archived::chunkId).collect(Collectors.toSet());
                // the page's default range, the last five minutes, and a range from a random minute of the run
                asked.ask(relay, counted, TimeBuckets.minuteOf(to - 60 * MINUTE), to, "", 60);
                asked.ask(relay, counted, TimeBuckets.minuteOf(to) - 5 * MINUTE, to, "", 1);
                long from = runStart - MINUTE * random.nextInt(2)
                        // a whole minute before to, never at it: a range must not be empty
                        + MINUTE * random.nextInt((int) ((to - runStart - 1) / MINUTE) + 1);
                String filter = switch (step % 4) {
                    case 0 -> "&release=app@2.0.0";
                    case 1 -> "&profiler_id=" + FleetChunks.profilerId(random.nextInt(FLEET));
                    case 2 -> "&thread_id=2";
                    default -> "";
                };
                asked.ask(relay, counted, Math.min(from, TimeBuckets.minuteOf(to)), to, filter, 10);
            }
        }

        // the fleet stops: its last chunks leave their window, their minutes settle and are rolled up
        for (int step = 0; step < 36; step++) {
            for (int r = 0; r < relays.size(); r++) {
                relays.get(r).clock().advance(STEP);
                LiveFleet.deriveWindowsEnded(relays.get(r), sentAt.get(r));
                if (step % 2 == 0) {
                    relays.get(r).bean(RollupBuilder.class).runOnce();
                }
            }
        }
        relays.forEach(r -> r.bean(RollupBuilder.class).runOnce());
        List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(first);
        assertEquals(sent, archived.size(), "every acknowledged chunk is derived");
        asked.assertEachEqualsTheWalk(archived);
        long end = nanos(first.clock().instant());
        FleetAnswers.assertSameAnswer(first, archived, runStart, end, "", 60);
        RelayClient.Answer collapsed = first.client().get("/api/v1/projects/1/profile?format=collapsed&from="
                + Instant.ofEpochSecond(0, runStart) + "&to=" + Instant.ofEpochSecond(0, end));
        long samples = collapsed.raw().lines().mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
        assertEquals(FleetAnswers.samples(archived), samples, "the run's range holds every archived sample");
        assertTrue(first.objects().keySet().stream().anyMatch(k -> k.startsWith("rollups/1/")), "rolled up");
    }

    private static void send(RunningRelay relay, int profiler, long startNanos) {
        LiveFleet.send(relay, CHUNKS, FLEET, profiler, startNanos, SAMPLES_PER_CHUNK);
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
