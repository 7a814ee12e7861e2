package chunkrelay.translate.export;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** The {@code Retry-After} header: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
final class RetryAfter {

    private RetryAfter() {
    }

    /**
     * The wait the header asks for, measured from {@code clock}; a date in the past means no wait. Empty when the
     * header is absent or unreadable, so the caller falls back to its own backoff.
     */
    static Optional<Duration> parse(Optional<String> header, Clock clock) {
        if (header.isEmpty() || header.get().isBlank()) {
            return Optional.empty();
        }
        String value = header.get().trim();
        if (value.chars().allMatch(Character::isDigit)) {
            try {
                return Optional.of(Duration.ofSeconds(Long.parseLong(value)));
            } catch (NumberFormatException tooLong) {
                return Optional.empty();
            }
        }
        try {
            ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
            Duration wait = Duration.between(clock.instant(), at.toInstant());
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException unreadable) {
            return Optional.empty();
        }
    }
}
