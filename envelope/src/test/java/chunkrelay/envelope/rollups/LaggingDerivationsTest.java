package chunkrelay.envelope.rollups;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Derivations that lag behind the load (a relay whose cores the ingest takes) past the minute's settling: the chunks
 * it counts from receipt stay in every answer, and the minute's rollup waits for them rather than leaving them out.
 */
class LaggingDerivationsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int FLEET = 6;
    private static final int SAMPLES_PER_CHUNK = 20;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);

    @Test
    void aSettledMinuteAnswersChunksNotDerivedYetAndItsRollupWaitsForThem() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory(); RunningRelay relay = heldRelay(s3)) {
            // a second into a minute: the chunks are of the minute before
            long now = nanos(relay.clock().instant());
            long minute = TimeBuckets.minuteOf(now);
            relay.clock().advance(Duration.ofNanos(minute + TimeBuckets.MINUTE_NANOS + SECOND - now));
            // half of them derived when their window ends, the other half not (the derivations lag)
            for (int p = 0; p < FLEET / 2; p++) {
                LiveFleet.send(relay, CHUNKS, FLEET, p, minute + (5 + 7 * p) * SECOND, SAMPLES_PER_CHUNK);
            }
            relay.clock().advance(Duration.ofSeconds(31));
            relay.bean(DerivationSchedule.class).runDue();
            ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
            Await.until(() -> derivations.pendingCount() + " chunks still pending", Duration.ofSeconds(30),
                    () -> derivations.pendingCount() == 0);
            for (int p = FLEET / 2; p < FLEET; p++) {
                LiveFleet.send(relay, CHUNKS, FLEET, p, minute + (5 + 7 * p) * SECOND, SAMPLES_PER_CHUNK);
            }
            long from = minute;
            long to = minute + TimeBuckets.MINUTE_NANOS;
            FleetAnswers.Answer atReceipt = FleetAnswers.ask(relay, from, to, "", 60);
            assertEquals(FLEET, atReceipt.chunks(), "every chunk counts from receipt");

            // the minute settles while no derivation has run: the builder leaves it for later
            relay.clock().advance(Duration.ofMinutes(3));
            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().noneMatch(k -> k.startsWith("rollups/1/")
                    && !k.matches(".*/o[0-9]{4}\\..*")), "no rollup built while its chunks wait: " + relay.objects()
                    .keySet().stream().filter(k -> k.startsWith("rollups/")).toList());
            assertEquals(atReceipt, FleetAnswers.ask(relay, from, to, "", 60),
                    "the settled minute is answered from its partial");

            // the derivations catch up: the next round builds the minute with every chunk
            relay.bean(DerivationSchedule.class).runDue();
            Await.until(() -> derivations.pendingCount() + " chunks still pending", Duration.ofSeconds(30),
                    () -> derivations.pendingCount() == 0);
            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.startsWith("rollups/1/")
                    && !k.matches(".*/o[0-9]{4}\\..*")), "the minute is rolled up");
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
            assertEquals(FLEET, archived.size(), "every chunk derived");
            assertEquals(FleetAnswers.walk(archived, from, to, "", 60), FleetAnswers.ask(relay, from, to, "", 60),
                    "the rollup's answer is the walk of the archived forms");
            assertEquals(FleetAnswers.walk(archived, from, to, "", 60), atReceipt,
                    "and so was the answer before they were derived");
        }
    }

    @Test
    void tenMinutesWaitForTheirMinuteWhoseChunksAreNotDerivedYet() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory(); RunningRelay relay = heldRelay(s3)) {
            long now = nanos(relay.clock().instant());
            long ten = TimeBuckets.bucketOf(RollupTier.TEN_MINUTES, now) + RollupTier.TEN_MINUTES.bucketNanos();
            long early = ten + 7 * TimeBuckets.MINUTE_NANOS;
            long last = ten + 9 * TimeBuckets.MINUTE_NANOS;
            // chunks of the ten minutes' eighth minute, derived when their window ends
            relay.clock().advance(Duration.ofNanos(early + TimeBuckets.MINUTE_NANOS + SECOND - now));
            for (int p = 0; p < FLEET / 2; p++) {
                LiveFleet.send(relay, CHUNKS, FLEET, p, early + (5 + 7 * p) * SECOND, SAMPLES_PER_CHUNK);
            }
            relay.clock().advance(Duration.ofSeconds(31));
            relay.bean(DerivationSchedule.class).runDue();
            ChunkDerivations derivations = relay.bean(ChunkDerivations.class);
            Await.until(() -> derivations.pendingCount() + " chunks still pending", Duration.ofSeconds(30),
                    () -> derivations.pendingCount() == 0);
            // chunks of its last minute, whose derivations lag
            relay.clock().advance(Duration.ofNanos(last + TimeBuckets.MINUTE_NANOS + SECOND
                    - nanos(relay.clock().instant())));
            for (int p = FLEET / 2; p < FLEET; p++) {
                LiveFleet.send(relay, CHUNKS, FLEET, p, last + (5 + 7 * p) * SECOND, SAMPLES_PER_CHUNK);
            }
            long to = ten + RollupTier.TEN_MINUTES.bucketNanos();
            FleetAnswers.Answer atReceipt = FleetAnswers.ask(relay, ten, to, "", 60);
            assertEquals(FLEET, atReceipt.chunks(), "every chunk counts from receipt");

            // the ten minutes settle: the eighth minute is rolled up, the last one and the ten minutes wait
            relay.clock().advance(Duration.ofMinutes(3));
            relay.bean(RollupBuilder.class).runOnce();
            String day = "rollups/1/" + TimeBuckets.dayOf(ten) + "/";
            String earlyRollup = day + "m" + TimeBuckets.name(RollupTier.MINUTE, early) + ".";
            String tenRollup = day + "t" + TimeBuckets.name(RollupTier.TEN_MINUTES, ten) + ".";
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.startsWith(earlyRollup)),
                    "the eighth minute is rolled up: " + rollupKeys(relay));
            assertTrue(relay.objects().keySet().stream().noneMatch(k -> k.startsWith(tenRollup)),
                    "no ten minutes' rollup without their last minute: " + rollupKeys(relay));
            assertEquals(atReceipt, FleetAnswers.ask(relay, ten, to, "", 60),
                    "the ten minutes still answer every chunk");

            // the derivations catch up: the last minute is rolled up, then the ten minutes with every chunk
            relay.bean(DerivationSchedule.class).runDue();
            Await.until(() -> derivations.pendingCount() + " chunks still pending", Duration.ofSeconds(30),
                    () -> derivations.pendingCount() == 0);
            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.startsWith(tenRollup)),
                    "the ten minutes are rolled up: " + rollupKeys(relay));
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
            assertEquals(FleetAnswers.walk(archived, ten, to, "", 60), FleetAnswers.ask(relay, ten, to, "", 60),
                    "the ten minutes' answer is the walk of the archived forms");
            assertEquals(FleetAnswers.walk(archived, ten, to, "", 60), atReceipt,
                    "and so was the answer before the last minute's chunks were derived");
        }
    }

    /**
     * As shipped (30 s link window) on a clock the test moves, its background work held so that the test runs the
     * derivations and the builder itself.
     */
    private static RunningRelay heldRelay(EmbeddedS3Server s3) {
        RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "30s",
                "relay.rollups.interval", "1h"));
        relay.bean(BackgroundWork.class).hold();
        return relay;
    }

    private static List<String> rollupKeys(RunningRelay relay) {
        return relay.objects().keySet().stream().filter(k -> k.startsWith("rollups/")).sorted().toList();
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
