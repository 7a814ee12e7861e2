package chunkrelay.envelope.health;

import chunkrelay.chunk.SampleCounts;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.TimeBuckets;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replica lets go of an hour once it ended and is written; a chunk its workers still count for that hour continues
 * the replica's part read back from the bucket, so nothing counted before is lost or counted twice.
 */
class HeldHoursTest {
    private static final SdkKey SDK = new SdkKey("sentry.python", "2.75.0", "python");

    @Test
    void aChunkOfAnHourLetGoContinuesTheReplicasPartInTheBucket() {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual"))) {
            TestClock clock = relay.clock();
            HealthCounts counts = relay.bean(HealthCounts.class);
            Instant received = clock.instant();
            counts.rejected(1, received, SDK, "profiling_invalid_json");
            counts.accepted(1, received, SDK, "0123456789abcdef0123456789abcdef", SampleCounts.noneDropped(7),
                    TimeBuckets.nanos(received) - 1, TimeBuckets.nanos(received));
            counts.share();

            clock.advance(Duration.ofHours(2));
            counts.share();
            // a worker slower than the hour's hold counts one more of each
            counts.rejected(1, received, SDK, "profiling_invalid_json");
            counts.accepted(1, received, SDK, "fedcba9876543210fedcba9876543210", SampleCounts.noneDropped(5),
                    TimeBuckets.nanos(received) - 1, TimeBuckets.nanos(received));

            String range = "from=" + (received.getEpochSecond() - 60) + "&to=" + (received.getEpochSecond() + 60);
            RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?" + range);
            assertEquals(200, answer.status(), answer.raw());
            JsonNode row = answer.body().path("sdks").get(0);
            assertEquals(1, answer.body().path("sdks").size());
            assertEquals(2, row.path("chunks").asLong());
            assertEquals(12, row.path("samples").asLong());
            assertEquals(2, row.path("rejected").path("profiling_invalid_json").asLong());
            assertEquals(2, row.path("sessions").asLong());
            assertEquals(1, relay.objects().keySet().stream().filter(k -> k.startsWith(ArchiveLayout.HEALTH)).count(),
                    "one part of the hour: the continued one replaced the first");
        }
    }
}
