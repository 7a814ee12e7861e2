package chunkrelay.envelope.health;

import chunkrelay.chunk.SampleCounts;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The silent-session gauges hold the last settled hour's silent sessions per SDK tags, summed over projects, once
 * that hour has settled and its silence margin passed; they are decided once per hour, read 0 for an SDK with none
 * in a later hour, and their job is a periodic job of {@link BackgroundWork} that stops with it.
 */
class SilentSessionGaugesTest {
    private static final SpanItems.Sender PYTHON = new SpanItems.Sender("sentry.python", "2.75.0", "python");
    private static final SpanItems.Sender PYTHON_PATCH = new SpanItems.Sender("sentry.python", "2.75.3", "python");
    private static final SpanItems.Sender NODE = new SpanItems.Sender("sentry.javascript.node", "8.43.1", "node");
    private static final SdkKey PYTHON_CHUNKS = new SdkKey("sentry.python", "2.75.0", "python");
    private static final SdkKey NODE_CHUNKS = new SdkKey("sentry.javascript.node", "8.43.1", "node");

    /** One transaction's naming of a session, and whether (and when after the hour's start) a chunk of it came. */
    private record Named(long project, SpanItems.Sender sender, String profilerId, int transactions,
                         Optional<Duration> chunkAfterHourStart) {
    }

    /** The test's own count of silent sessions and their transactions, per SDK tags. */
    private static Map<List<String>, long[]> expected(List<Named> named, Duration margin, Instant hour) {
        Instant from = hour.minus(margin);
        Instant to = hour.plus(Duration.ofHours(1)).plus(margin);
        Map<List<String>, Set<String>> silentIds = new HashMap<>();
        Map<List<String>, long[]> silent = new HashMap<>();
        for (Named n : named) {
            boolean chunkWithin = n.chunkAfterHourStart().map(hour::plus)
                    .filter(at -> !at.isBefore(from) && at.isBefore(to)).isPresent();
            if (!chunkWithin) {
                List<String> tags = List.of(n.sender().name(), majorMinor(n.sender().version()), n.sender().platform());
                long[] sum = silent.computeIfAbsent(tags, t -> new long[2]);
                if (silentIds.computeIfAbsent(tags, t -> new HashSet<>()).add(n.project() + "/" + n.profilerId())) {
                    sum[0]++;
                }
                sum[1] += n.transactions();
            }
        }
        return silent;
    }

    private static String majorMinor(String version) {
        String[] parts = version.split("\\.");
        return parts[0] + "." + parts[1];
    }

    private static void moveTo(TestClock clock, Instant at) {
        clock.advance(Duration.between(clock.instant(), at));
    }

    private static Optional<Double> gauge(MeterRegistry registry, RelayMeter meter, List<String> tags) {
        return Optional.ofNullable(registry.find(meter.meterName()).tag("sdk", tags.get(0))
                .tag("sdk_version", tags.get(1)).tag("platform", tags.get(2)).gauge()).map(Gauge::value);
    }

    @Test
    void theGaugesHoldTheLastSettledHoursSilentSessionsPerSdkAndReadZeroOnceAnHourHasNone() {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual"))) {
            relay.bean(BackgroundWork.class).hold();
            TestClock clock = relay.clock();
            HealthCounts counts = relay.bean(HealthCounts.class);
            SilentSessionMeters gauges = relay.bean(SilentSessionMeters.class);
            MeterRegistry registry = relay.bean(MeterRegistry.class);
            Duration margin = relay.bean(HealthQuestions.class).silenceMargin();
            Duration settle = relay.bean(TimeBuckets.class).settle();
            Instant hour = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
            moveTo(clock, hour.plus(Duration.ofMinutes(5)));

            Duration far = margin.plus(Duration.ofMinutes(2));
            List<Named> named = List.of(
                    new Named(1, PYTHON, "00000000000000000000000000000001", 2, Optional.of(Duration.ofMinutes(20))),
                    new Named(1, PYTHON, "00000000000000000000000000000002", 3, Optional.empty()),
                    new Named(1, PYTHON_PATCH, "00000000000000000000000000000003", 1,
                            Optional.of(Duration.ofHours(1).plus(far))),
                    new Named(2, PYTHON, "00000000000000000000000000000004", 4, Optional.empty()),
                    new Named(2, NODE, "00000000000000000000000000000005", 5, Optional.of(Duration.ofMinutes(59))),
                    new Named(2, NODE, "00000000000000000000000000000006", 6, Optional.of(far.negated())),
                    new Named(2, NODE, "00000000000000000000000000000007", 7,
                            Optional.of(Duration.ofMinutes(60).plus(margin).minusSeconds(30))));
            for (Named n : named) {
                counts.named(n.project(), hour.plus(Duration.ofMinutes(30)), n.sender(), NamedTransactions.naming(
                        Map.of(n.profilerId(), n.transactions()), hour.plus(Duration.ofMinutes(30))));
                SdkKey chunks = n.sender().name().equals(NODE.name()) ? NODE_CHUNKS : PYTHON_CHUNKS;
                n.chunkAfterHourStart().ifPresent(after -> counts.accepted(n.project(), hour.plus(after), chunks,
                        n.profilerId(), SampleCounts.noneDropped(2), TimeBuckets.nanos(hour.plus(after)) - 1,
                        TimeBuckets.nanos(hour.plus(after))));
            }
            Map<List<String>, long[]> expected = expected(named, margin, hour);
            List<String> python = List.of("sentry.python", "2.75", "python");
            List<String> node = List.of("sentry.javascript.node", "8.43", "node");
            assertEquals(Set.of(python, node), expected.keySet(), "the test's sends make both SDKs silent");

            Instant settled = hour.plus(Duration.ofHours(1)).plus(margin.compareTo(settle) > 0 ? margin : settle);
            moveTo(clock, settled.minusSeconds(1));
            gauges.runDue();
            assertEquals(Optional.empty(), gauge(registry, RelayMeter.SDK_SESSIONS_SILENT, python),
                    "the hour has not settled yet");

            moveTo(clock, settled);
            gauges.runDue();
            for (Map.Entry<List<String>, long[]> sdk : expected.entrySet()) {
                assertEquals(Optional.of((double) sdk.getValue()[0]),
                        gauge(registry, RelayMeter.SDK_SESSIONS_SILENT, sdk.getKey()), sdk.getKey().toString());
                assertEquals(Optional.of((double) sdk.getValue()[1]),
                        gauge(registry, RelayMeter.SDK_TRANSACTIONS_SILENT, sdk.getKey()), sdk.getKey().toString());
            }

            // counts of the decided hour shared later do not make the job read the bucket again within the hour
            counts.named(1, hour.plus(Duration.ofMinutes(40)), NODE, NamedTransactions.naming(
                    Map.of("0000000000000000000000000000000e", 9), hour.plus(Duration.ofMinutes(40))));
            counts.share();
            moveTo(clock, settled.plus(Duration.ofMinutes(10)));
            gauges.runDue();
            assertEquals(Optional.of((double) expected.get(node)[0]),
                    gauge(registry, RelayMeter.SDK_SESSIONS_SILENT, node));

            moveTo(clock, settled.plus(Duration.ofHours(1)));
            gauges.runDue();
            for (List<String> sdk : expected.keySet()) {
                assertEquals(Optional.of(0.0), gauge(registry, RelayMeter.SDK_SESSIONS_SILENT, sdk), sdk.toString());
                assertEquals(Optional.of(0.0), gauge(registry, RelayMeter.SDK_TRANSACTIONS_SILENT, sdk),
                        sdk.toString());
            }
        }
    }

    @Test
    void theGaugesJobIsAPeriodicJobOfTheBackgroundWorkAndStopsWithIt() throws InterruptedException {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual"))) {
            Thread job = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("health-silence")).findFirst().orElseThrow();
            assertTrue(job.isAlive() && job.isDaemon());

            relay.bean(BackgroundWork.class).stop();
            job.join(Duration.ofSeconds(10).toMillis());
            assertFalse(job.isAlive(), "the job's thread ended with the background work");
        }
    }
}
