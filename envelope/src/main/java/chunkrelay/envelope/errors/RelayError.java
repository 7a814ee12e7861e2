package chunkrelay.envelope.errors;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpStatus;

import java.util.List;
import java.util.Map;

/**
 * A request refused with Relay's status code and error body: {@code detail} is the error itself,
 * {@code causes} the chain of reasons below it, outermost first.
 */
public class RelayError extends RuntimeException {
    private final HttpStatus status;
    private final String detail;
    private final List<String> causes;
    private final Map<String, String> headers;

    public RelayError(HttpStatus status, String detail, List<String> causes, Map<String, String> headers) {
        super(causes.isEmpty() ? detail : detail + ": " + String.join(": ", causes));
        this.status = status;
        this.detail = detail;
        this.causes = List.copyOf(causes);
        this.headers = Map.copyOf(headers);
    }

    public RelayError(HttpStatus status, String detail, List<String> causes) {
        this(status, detail, causes, Map.of());
    }

    public RelayError(HttpStatus status, String detail, String... causes) {
        this(status, detail, List.of(causes));
    }

    public HttpStatus status() {
        return status;
    }

    public String detail() {
        return detail;
    }

    public List<String> causes() {
        return causes;
    }

    /** Headers the answer carries besides the body, such as a rate limit's {@code Retry-After}; none by default. */
    public Map<String, String> headers() {
        return headers;
    }

    public static RelayError invalidEnvelope(String... causes) {
        return new RelayError(HttpStatus.BAD_REQUEST, "invalid event envelope", causes);
    }

    public static RelayError badAuth(String cause) {
        return new RelayError(HttpStatus.UNAUTHORIZED, "bad x-sentry-auth header", cause);
    }

    /** Over a decoded size limit while the body was being read. */
    public static RelayError bodyTooLarge() {
        return new RelayError(HttpStatus.REQUEST_ENTITY_TOO_LARGE, "failed to read request body",
                "payload reached its size limit");
    }

    /** An item over its type's limits, found once the whole envelope has been read. */
    public static RelayError itemTooLarge(String itemType) {
        return new RelayError(HttpStatus.REQUEST_ENTITY_TOO_LARGE, "envelope exceeded size limits for type '"
                + itemType + "' (https://develop.sentry.dev/sdk/envelopes/#size-limits)");
    }

    /**
     * The relay cannot take the envelope now (full queue or budget, disk, spool or archive down, out of memory):
     * 503 with {@code Retry-After}, so the SDK keeps it and sends it again. {@code cause} may be null.
     */
    public static RelayError cannotQueue(String cause, long retryAfterSeconds) {
        return unavailable("failed to queue envelope", cause == null ? List.of() : List.of(cause), retryAfterSeconds);
    }

    /**
     * The one shape of every 503: the client should come back after {@code retryAfterSeconds}
     * ({@link RetryLater} holds the configured ones).
     */
    public static RelayError unavailable(String detail, List<String> causes, long retryAfterSeconds) {
        return new RelayError(HttpStatus.SERVICE_UNAVAILABLE, detail, causes,
                Map.of(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds)));
    }

    public static RelayError invalidBody(String cause) {
        return new RelayError(HttpStatus.BAD_REQUEST, "invalid request body", cause);
    }
}
