package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.perftools.profiles.ProfileProto;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A generated fleet (profilers of two releases, chunks straddling minutes, idle samples) archived, rolled up, then
 * asked for random ranges and filters: every answer through rollups equals the one the test computes by its own walk
 * of the archived OTLP forms (samples per thread and stack, timeline steps, chunks counted), with a raw-read cap far
 * below the fleet's chunks, so that only rollups can answer; chunks sent late into rolled-up minutes are in the next
 * answer, and the builder then takes them into the rollups.
 */
@Tag("slow")
class FleetRollupsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final int FLEET = 3;
    private static final int CHUNKS_PER_PROFILER = 130;
    private static final int SAMPLES_PER_CHUNK = 80;
    private static final FleetChunks CHUNKS = new FleetChunks(FleetChunks.ROLLUP_TESTS);

    @Test
    void rangesAnsweredFromRollupsEqualTheWalkOfTheArchivedChunksAndLateChunksAreInTheNextAnswer() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "0s",
                     "relay.rollups.interval", "1h", "relay.views.max-chunks", "120"))) {
            long now = nanos(relay.clock().instant());
            long start = Math.floorDiv(now, HOUR) * HOUR - 4 * HOUR;
            for (int p = 0; p < FLEET; p++) {
                for (int c = 0; c < CHUNKS_PER_PROFILER; c++) {
                    send(relay, p, FleetChunks.release(p, FLEET), start + c * MINUTE + p * 7 * SECOND);
                }
            }
            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.startsWith("rollups/1/") && k.contains("/h")),
                    "hour rollups are built");
            List<FleetAnswers.Archived> archived = FleetAnswers.Archived.all(relay);

            Random random = new Random(7);
            long span = CHUNKS_PER_PROFILER * MINUTE;
            for (int round = 0; round < 12; round++) {
                long from = start - 5 * MINUTE + (long) random.nextInt((int) (span / SECOND / 2)) * SECOND;
                long to = from + (20 * MINUTE) + (long) random.nextInt((int) (span / SECOND / 2)) * SECOND;
                String filter = switch (round % 4) {
                    case 0 -> "";
                    case 1 -> "&release=app@2.0.0";
                    case 2 -> "&profiler_id=" + FleetChunks.profilerId(1);
                    default -> "&thread_id=2&environment=production";
                };
                FleetAnswers.assertSameAnswer(relay, archived, from, to, filter, round % 2 == 0 ? 60 : 300);
            }
            FleetAnswers.assertSameAnswer(relay, archived, start, start + 3 * HOUR, "", 3600);

            // late chunks of a new profiler into rolled-up minutes: in the next answer, before any rebuild
            for (int c = 0; c < 10; c++) {
                send(relay, FLEET, "app@2.0.0", start + (5 + c) * MINUTE + 30 * SECOND);
            }
            assertTrue(relay.objects().keySet().stream().anyMatch(k -> k.startsWith("late/1/")),
                    "late chunks are queued");
            archived = FleetAnswers.Archived.all(relay);
            FleetAnswers.assertSameAnswer(relay, archived, start, start + 3 * HOUR, "", 60);
            FleetAnswers.assertSameAnswer(relay, archived, start + 2 * MINUTE, start + 14 * MINUTE + 17 * SECOND,
                    "&release=app@2.0.0", 60);

            relay.bean(RollupBuilder.class).runOnce();
            assertTrue(relay.objects().keySet().stream().noneMatch(k -> k.startsWith("late/1/")),
                    "the builder took the late chunks into the rollups");
            FleetAnswers.assertSameAnswer(relay, archived, start, start + 3 * HOUR, "", 300);
            FleetAnswers.assertSameAnswer(relay, archived, start + MINUTE + 11 * SECOND, start + 2 * HOUR, "&thread_id=1", 60);
        }
    }

    private static void send(RunningRelay relay, int profiler, String release, long startNanos) {
        byte[] chunk = CHUNKS.chunk(profiler, release, startNanos, SAMPLES_PER_CHUNK);
        assertEquals(200, relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                FleetChunks.envelope(chunk)).status());
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }
}
