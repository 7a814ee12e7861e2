package chunkrelay.envelope.health;

import chunkrelay.chunk.SampleCounts;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.TimeBuckets;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A session named by transactions is silent only when no chunk of it came within the link window plus a minute of
 * the range, on either side, whichever replica or SDK row counted the chunk; the margin is minutes of receipt, so a
 * chunk a minute and a half away still counts with a 30 s window and one three minutes away does not.
 */
class SilenceMarginTest {
    private static final SpanItems.Sender PYTHON = new SpanItems.Sender("sentry.python", "2.75.0", "python");
    private static final SdkKey PYTHON_CHUNKS = new SdkKey("sentry.python", "2.75.0", "python");
    private static final SdkKey OTHER_ROW = new SdkKey("sentry.python", "2.75.0", "unknown");
    private static final String BEFORE = "0000000000000000000000000000000b";
    private static final String AFTER = "0000000000000000000000000000000a";
    private static final String OTHER_SDK = "0000000000000000000000000000000c";
    private static final String FAR = "0000000000000000000000000000000f";
    private static final String NEVER = "00000000000000000000000000000000";

    /** A chunk of three samples spanning the second before it was received. */
    private static void accepted(HealthCounts counts, Instant received, SdkKey sdk, String profilerId) {
        counts.accepted(1, received, sdk, profilerId, SampleCounts.noneDropped(3),
                TimeBuckets.nanos(received.minusSeconds(1)), TimeBuckets.nanos(received));
    }

    @Test
    void aSessionIsSilentWithoutAChunkWithinTheWindowAndAMinuteOfTheRange() {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "30s"))) {
            TestClock clock = relay.clock();
            HealthCounts counts = relay.bean(HealthCounts.class);
            // the range is one minute, well inside an hour, so that the widened range stays in it
            Instant minute = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofMinutes(30));
            counts.named(1, minute.plusSeconds(10), PYTHON, NamedTransactions.naming(Map.of(BEFORE, 2, AFTER, 3,
                    OTHER_SDK, 1, FAR, 4, NEVER, 5), minute.plusSeconds(10)));
            accepted(counts, minute.minusSeconds(50), PYTHON_CHUNKS, BEFORE);
            accepted(counts, minute.plusSeconds(60 + 80), PYTHON_CHUNKS, AFTER);
            accepted(counts, minute.plusSeconds(20), OTHER_ROW, OTHER_SDK);
            accepted(counts, minute.plusSeconds(60 + 180), PYTHON_CHUNKS, FAR);

            RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?from="
                    + minute.getEpochSecond() + "&to=" + (minute.getEpochSecond() + 60));
            assertEquals(200, answer.status(), answer.raw());
            JsonNode row = answer.body().path("sdks").get(0);
            assertEquals("python", row.path("platform").asText(), answer.raw());
            assertEquals(15, row.path("transactions").asLong());
            assertEquals(2, row.path("silentSessions").asLong(), "FAR and NEVER: " + answer.raw());
            assertEquals(9, row.path("transactionsSilent").asLong());
        }
    }
}
