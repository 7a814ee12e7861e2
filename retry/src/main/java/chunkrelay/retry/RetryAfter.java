package chunkrelay.retry;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The {@code Retry-After} header, read the one way for every upstream the relay sends to: delay-seconds or an
 * HTTP date (RFC 9110 §10.2.3). Seconds may carry a fraction, as Sentry's Relay writes them; a fraction rounds up,
 * so that a retry never comes early.
 */
public final class RetryAfter {

    private RetryAfter() {
    }

    /**
     * The wait the header asks for, measured from {@code now}; a date in the past means no wait. Empty when the
     * header is absent, negative or unreadable, so that the caller falls back to its own wait.
     */
    public static Optional<Duration> parse(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.trim();
        if (!value.isEmpty() && Character.isDigit(value.charAt(0))) {
            return seconds(value);
        }
        try {
            Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException unreadable) {
            return Optional.empty();
        }
    }

    /** Digits with an optional fraction; empty for anything else, or for more seconds than a Duration holds. */
    private static Optional<Duration> seconds(String value) {
        if (!value.matches("[0-9]+(\\.[0-9]*)?")) {
            return Optional.empty();
        }
        try {
            long whole = new BigDecimal(value).setScale(0, RoundingMode.CEILING).longValueExact();
            return Optional.of(Duration.ofSeconds(whole));
        } catch (ArithmeticException tooLong) {
            return Optional.empty();
        }
    }
}
