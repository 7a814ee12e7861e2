package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
    private final Clock clock = Clock.fixed(Instant.parse("2026-11-22T03:00:00Z"), ZoneOffset.UTC);

    @Test
    void readsDelaySeconds() {
        assertEquals(Optional.of(Duration.ofSeconds(120)), RetryAfter.parse(Optional.of("120"), clock));
        assertEquals(Optional.of(Duration.ZERO), RetryAfter.parse(Optional.of("0"), clock));
    }

    @Test
    void readsAnHttpDateRelativeToTheClock() {
        assertEquals(Optional.of(Duration.ofSeconds(90)),
                RetryAfter.parse(Optional.of("Sun, 22 Nov 2026 03:01:30 GMT"), clock));
    }

    @Test
    void treatsAPastDateAsNoWait() {
        assertEquals(Optional.of(Duration.ZERO),
                RetryAfter.parse(Optional.of("Sun, 22 Nov 2026 02:00:00 GMT"), clock));
    }

    @Test
    void ignoresAbsentOrUnreadableValues() {
        assertEquals(Optional.empty(), RetryAfter.parse(Optional.empty(), clock));
        assertEquals(Optional.empty(), RetryAfter.parse(Optional.of("soon"), clock));
        assertEquals(Optional.empty(), RetryAfter.parse(Optional.of("-5"), clock));
        assertEquals(Optional.empty(), RetryAfter.parse(Optional.of("99999999999999999999999"), clock));
    }
}
