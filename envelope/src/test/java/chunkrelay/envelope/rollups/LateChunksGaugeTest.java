package chunkrelay.envelope.rollups;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.envelope.testing.DatedChunks;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code relay_rollups_late_chunks} is what the late queues of all projects held at the builder's last round: two
 * projects with chunks sent long after their minutes settled show the sum of both queues (not the last project's),
 * and once the builder has taken them into the rollups the next round shows what is left.
 */
class LateChunksGaugeTest {
    private static final String KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";

    @Test
    void theLateChunksGaugeSumsTheLateQueuesOfEveryProject() {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.rollups.interval", "1h"))) {
            Instant settled = relay.clock().instant().minus(Duration.ofHours(2));
            int chunk = 0;
            for (String project : new String[] {"1", "2", "2"}) {
                chunk++;
                assertEquals(200, relay.client().post("/api/" + project + "/envelope/?sentry_key=" + KEY,
                        DatedChunks.envelope(settled.plus(Duration.ofMinutes(chunk)), chunk)).status());
            }
            long lateOne = late(relay, "1");
            long lateTwo = late(relay, "2");
            assertTrue(lateOne > 0 && lateTwo > lateOne, "late queues: " + lateOne + " and " + lateTwo);

            relay.bean(RollupBuilder.class).runOnce();
            assertEquals(lateOne + lateTwo, gauge(relay), "the late queues of both projects");

            long left = late(relay, "1") + late(relay, "2");
            relay.bean(RollupBuilder.class).runOnce();
            assertEquals(left, gauge(relay), "what the first round left");
        }
    }

    private static long late(RunningRelay relay, String project) {
        return relay.objects().keySet().stream().filter(k -> k.startsWith("late/" + project + "/")).count();
    }

    private static double gauge(RunningRelay relay) {
        return PrometheusScrape.of(relay.uri()).value(RelayMeter.ROLLUPS_LATE_CHUNKS.prometheusName());
    }
}
