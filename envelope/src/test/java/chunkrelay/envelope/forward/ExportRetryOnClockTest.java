package chunkrelay.envelope.forward;

import chunkrelay.translate.export.DeliveryResult;
import chunkrelay.translate.export.OtlpHttpExporter;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay's exporter waits between attempts on the relay's clock: on a test's manual clock, retries ten minutes
 * apart are over at once, with the clock moved by the waits, as their retry budget (on the same clock) expects.
 * Waited in real time, they would outlast the test's timeout.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "test.clock", value = "manual")
@Property(name = "relay.otlp.endpoint", value = "http://127.0.0.1:9/")
@Property(name = "relay.otlp.max-attempts", value = "3")
@Property(name = "relay.otlp.initial-backoff", value = "10m")
@Property(name = "relay.otlp.max-backoff", value = "10m")
@Property(name = "relay.otlp.max-elapsed", value = "1h")
class ExportRetryOnClockTest {
    @Inject
    OtlpHttpExporter exporter;

    @Inject
    Clock clock;

    @Test
    @Timeout(60)
    void retriesOfAnExportWaitOnTheRelaysClock() throws InterruptedException {
        Instant start = clock.instant();

        DeliveryResult result = exporter.export(new byte[0]);

        assertFalse(result.delivered(), result.reason());
        assertEquals(3, result.attempts(), result.reason());
        Duration waited = Duration.between(start, clock.instant());
        // two waits of 50-100 % of ten minutes each
        assertTrue(waited.compareTo(Duration.ofMinutes(10)) >= 0 && waited.compareTo(Duration.ofMinutes(20)) <= 0,
                "the clock moved by " + waited);
    }
}
