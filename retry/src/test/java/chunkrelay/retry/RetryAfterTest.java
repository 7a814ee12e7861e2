package chunkrelay.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
    private final Instant now = Instant.parse("2026-11-22T03:00:00Z");

    @Test
    void readsDelaySeconds() {
        assertEquals(Optional.of(Duration.ofSeconds(120)), RetryAfter.parse("120", now));
        assertEquals(Optional.of(Duration.ZERO), RetryAfter.parse("0", now));
    }

    @Test
    void roundsFractionalSecondsUpAsRelayWritesThem() {
        assertEquals(Optional.of(Duration.ofSeconds(2)), RetryAfter.parse("1.5", now));
        assertEquals(Optional.of(Duration.ofSeconds(60)), RetryAfter.parse(" 60.0 ", now));
        assertEquals(Optional.of(Duration.ofSeconds(1)), RetryAfter.parse("0.001", now));
    }

    @Test
    void readsAnHttpDateRelativeToTheClock() {
        assertEquals(Optional.of(Duration.ofSeconds(90)), RetryAfter.parse("Sun, 22 Nov 2026 03:01:30 GMT", now));
    }

    @Test
    void treatsAPastDateAsNoWait() {
        assertEquals(Optional.of(Duration.ZERO), RetryAfter.parse("Sun, 22 Nov 2026 02:00:00 GMT", now));
    }

    @Test
    void ignoresAbsentOrUnreadableValues() {
        assertEquals(Optional.empty(), RetryAfter.parse(null, now));
        assertEquals(Optional.empty(), RetryAfter.parse("  ", now));
        assertEquals(Optional.empty(), RetryAfter.parse("soon", now));
        assertEquals(Optional.empty(), RetryAfter.parse("-5", now));
        assertEquals(Optional.empty(), RetryAfter.parse("1e3", now));
        assertEquals(Optional.empty(), RetryAfter.parse("99999999999999999999999", now));
    }
}
