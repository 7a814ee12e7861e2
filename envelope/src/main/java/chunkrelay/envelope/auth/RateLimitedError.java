package chunkrelay.envelope.auth;

import chunkrelay.envelope.errors.RelayError;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpStatus;

import java.util.Map;

/**
 * An envelope refused because its project's quota is spent: 429 with {@code Retry-After} and Relay's
 * {@code X-Sentry-Rate-Limits} ({@code seconds:category:scope:reason_code}), which SDKs obey per category.
 */
public class RateLimitedError extends RelayError {
    public static final String RATE_LIMITS_HEADER = "X-Sentry-Rate-Limits";
    /** Relay's reason code of a project quota. */
    static final String PROJECT_QUOTA = "project_quota";

    private final long retryAfterSeconds;
    private final ChunkCategory category;

    RateLimitedError(long retryAfterSeconds, ChunkCategory category) {
        super(HttpStatus.TOO_MANY_REQUESTS, "event rejected due to rate limit");
        this.retryAfterSeconds = retryAfterSeconds;
        this.category = category;
    }

    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    ChunkCategory category() {
        return category;
    }

    @Override
    public Map<String, String> headers() {
        return Map.of(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds), RATE_LIMITS_HEADER, rateLimitsHeader());
    }

    /** The {@code X-Sentry-Rate-Limits} value, e.g. {@code 42:profile_chunk:project:project_quota}. */
    String rateLimitsHeader() {
        return retryAfterSeconds + ":" + category.relayName() + ":project:" + PROJECT_QUOTA;
    }
}
