package chunkrelay.envelope.upstream;

import java.time.Duration;
import java.util.Optional;

/** A {@code Retry-After} in seconds; SDK and Relay traffic does not use the HTTP-date form. */
final class RetryAfterHeader {
    private RetryAfterHeader() {
    }

    static Optional<Duration> seconds(String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Duration.ofSeconds(Math.max(0, (long) Math.ceil(Double.parseDouble(value.trim())))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
