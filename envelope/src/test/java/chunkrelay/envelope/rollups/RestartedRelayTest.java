package chunkrelay.envelope.rollups;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.TimeBuckets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A relay as shipped (30 s link window, rollups on, {@code relay.views.max-chunks} 500) under a fleet of 20 chunks a
 * second is stopped and a new one started on the same bucket while the fleet keeps sending: its open minutes hold
 * far more than 500 chunks its predecessor derived, and the new relay answers the default range, functions and
 * timeline 200 within 15 s of listening on its clock (503 with {@code Retry-After} until then), equal to the test's
 * own walk of the archived OTLP forms of the chunks acknowledged by then (checked once all are archived); once the
 * fleet stops, the partials the old relay left are removed when their
 * minutes are rolled up.
 */
@Tag("slow")
class RestartedRelayTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    /** 200 processes each ending a 10 s chunk every 10 s: 20 chunks a second. */
    private static final int FLEET = 200;
    private static final int SAMPLES_PER_CHUNK = 20;
    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);
    /** The shipped settings but for a clock the test moves; the background work is driven by the test. */
    private static final Map<String, Object> SHIPPED = Map.of("test.clock", "manual",
            "relay.links.window", WINDOW.toSeconds() + "s");
    private static final Pattern PART = Pattern.compile("rollups/1/[0-9-]+/o[0-9]{4}\\.([a-z0-9]+)\\.[0-9]+");

    @Test
    void aRestartedRelayAnswersTheDefaultRangeWithin15SecondsOfListeningAndExactly() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            Fleet fleet = new Fleet();
            Duration clockAhead;
            try (RunningRelay old = start(s3, SHIPPED)) {
                // two and a half minutes: the open minutes at the stop hold about 2 000 chunks
                fleet.run(old, 150, true);
                clockAhead = Duration.between(Instant.now(), old.clock().instant());
            }
            Set<String> oldReplicas = replicas(RunningRelay.objects(s3).keySet());
            assertFalse(oldReplicas.isEmpty(), "the stopped relay leaves its partials of the open minutes");

            // the new relay's clock goes on from the old one's by the time the stop and the start took
            Map<String, Object> restarted = new HashMap<>(SHIPPED);
            restarted.put("test.clock-ahead", clockAhead.toMillis() + "ms");
            try (RunningRelay relay = start(s3, restarted)) {
                Instant listening = relay.clock().instant();
                fleet.restarted(relay);
                long waited = -1;
                for (int second = 0; second <= 90; second++) {
                    if (defaultRangeAnswers(relay)) {
                        waited = Duration.between(listening, relay.clock().instant()).toSeconds();
                        break;
                    }
                    fleet.run(relay, 1, true);
                }
                System.out.println("restarted relay: default range 200 after " + waited + " s on its clock");
                assertTrue(waited >= 0 && waited <= 15, "the default range answers 200 within 15 s of listening, "
                        + "after " + waited + " s");

                long to = Math.floorDiv(nanos(relay.clock().instant()), SECOND) * SECOND;
                // the chunks in their window count from receipt: checked once they are all archived
                FleetAnswers.AskedWhileSending asked = new FleetAnswers.AskedWhileSending();
                asked.ask(relay, fleet.acknowledged, TimeBuckets.minuteOf(to - 60 * MINUTE), to, "", 60);
                asked.ask(relay, fleet.acknowledged, TimeBuckets.minuteOf(to) - 5 * MINUTE, to,
                        "&release=app@2.0.0", 1);

                // the fleet stops; the clock runs on until the old relay's minutes are rolled up and a minute past
                fleet.run(relay, 180, false);
                Set<String> left = replicas(relay.objects().keySet());
                left.retainAll(oldReplicas);
                assertTrue(left.isEmpty(), "the partials the old relay left are removed once rolled up: " + left);
                to = Math.floorDiv(nanos(relay.clock().instant()), SECOND) * SECOND;
                List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);
                asked.assertEachEqualsTheWalk(archived);
                FleetAnswers.assertSameAnswer(relay, archived, TimeBuckets.minuteOf(to - 60 * MINUTE), to, "", 60);
            }
        }
    }

    private static RunningRelay start(EmbeddedS3Server s3, Map<String, Object> properties) {
        RunningRelay relay = RunningRelay.start(s3, properties);
        relay.bean(BackgroundWork.class).hold();
        return relay;
    }

    /**
     * The default range (no from or to), its functions and its timeline: true when all three answer 200, false when
     * all three answer 503 with {@code Retry-After}.
     */
    private static boolean defaultRangeAnswers(RunningRelay relay) {
        RelayClient client = relay.client();
        int ok = 0;
        for (String path : List.of("/api/v1/projects/1/profile?format=pprof", "/api/v1/projects/1/functions",
                "/api/v1/projects/1/timeline?step=60")) {
            RelayClient.Answer answer = client.get(path);
            if (answer.status() == 200) {
                ok++;
            } else {
                assertEquals(503, answer.status(), path + ": " + answer.raw());
                assertTrue(answer.headers().firstValue("Retry-After").isPresent(), path + " says when to retry");
            }
        }
        return ok == 3;
    }

    private static Set<String> replicas(Set<String> keys) {
        Set<String> replicas = new TreeSet<>();
        for (String key : keys) {
            Matcher part = PART.matcher(key);
            if (part.matches()) {
                replicas.add(part.group(1));
            }
        }
        return replicas;
    }

    /**
     * The fleet and the relay's background work, driven second by second on the relay's clock as its schedules
     * would run them: windows ended derived, partials shared every 5 s, the builder every 10 s.
     */
    private static final class Fleet {
        private final Deque<Long> inWindow = new ArrayDeque<>();
        private final Set<String> acknowledged = new HashSet<>();
        private Instant started;

        void restarted(RunningRelay relay) {
            // the old relay derived what was in its window at its stop
            inWindow.clear();
            started = relay.clock().instant();
        }

        void run(RunningRelay relay, int seconds, boolean sending) throws InterruptedException {
            if (started == null) {
                started = relay.clock().instant();
            }
            for (int s = 0; s < seconds; s++) {
                relay.clock().advance(Duration.ofSeconds(1));
                long now = nanos(relay.clock().instant());
                long second = Math.floorDiv(now, SECOND);
                for (int p = (int) Math.floorMod(second, 10); sending && p < FLEET; p += 10) {
                    byte[] chunk = CHUNKS.chunk(p, FleetChunks.release(p, FLEET), now - 10 * SECOND,
                            SAMPLES_PER_CHUNK);
                    assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                            FleetChunks.envelope(chunk)).status());
                    acknowledged.add(CHUNKS.chunkId(p, now - 10 * SECOND));
                    inWindow.add(now);
                }
                LiveFleet.deriveWindowsEnded(relay, inWindow);
                long since = Duration.between(started, relay.clock().instant()).toSeconds();
                if (since % 5 == 0) {
                    relay.bean(OpenMinutes.class).share();
                }
                if (since % 10 == 0) {
                    relay.bean(RollupBuilder.class).runOnce();
                }
            }
        }
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
