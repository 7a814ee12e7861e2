package chunkrelay.translate.export;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Settings of OTLP/HTTP forwarding. Each component maps to one configuration key under {@code relay.otlp.}:
 * {@code endpoint}, {@code headers.<name>}, {@code compression}, {@code connect-timeout}, {@code timeout},
 * {@code queue-capacity}, {@code queue-max-bytes}, {@code workers}, {@code max-attempts}, {@code max-elapsed},
 * {@code initial-backoff}, {@code max-backoff}, {@code max-request-size}, {@code drain-timeout}.
 *
 * @param endpoint        base URI of the OTLP/HTTP receiver, e.g. {@code http://collector:4318}; the path
 *                        {@code /v1development/profiles} is appended to whatever path it has
 * @param headers         extra request headers (tokens, tenant ids such as {@code X-Scope-OrgID})
 * @param compression     Content-Encoding of request bodies
 * @param connectTimeout  TCP/TLS connect timeout
 * @param timeout         timeout of one HTTP attempt up to the response headers; reading the response body
 *                        gets as long again, so an attempt never takes more than twice this
 * @param queueCapacity   requests the forwarding queue holds before {@code offer} refuses
 * @param queueMaxBytes   total body bytes the forwarding queue holds before {@code offer} refuses
 * @param workers         threads delivering from the queue
 * @param maxAttempts     attempts per request (first one included) before a retryable failure becomes final
 * @param maxElapsed      time budget per request for retries; a wait that would overrun it ends the retries
 * @param initialBackoff  backoff before the first retry; doubled per retry, jittered to 50-100 %
 * @param maxBackoff      ceiling of the computed backoff (a longer Retry-After is still honoured)
 * @param maxRequestBytes serialized requests above this size are split into parts no larger than it
 * @param drainTimeout    how long {@link ForwardingQueue#close()} lets the workers drain the queue
 */
public record OtlpExportSettings(
        URI endpoint,
        Map<String, String> headers,
        Compression compression,
        Duration connectTimeout,
        Duration timeout,
        int queueCapacity,
        long queueMaxBytes,
        int workers,
        int maxAttempts,
        Duration maxElapsed,
        Duration initialBackoff,
        Duration maxBackoff,
        long maxRequestBytes,
        Duration drainTimeout) {

    public static final Compression DEFAULT_COMPRESSION = Compression.GZIP;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_QUEUE_CAPACITY = 256;
    public static final long DEFAULT_QUEUE_MAX_BYTES = 256L * 1024 * 1024;
    public static final int DEFAULT_WORKERS = 2;
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final Duration DEFAULT_MAX_ELAPSED = Duration.ofSeconds(60);
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);
    /** The collector's documented ceiling for one OTLP request. */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 64L * 1024 * 1024;
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

    /** Headers the JDK client manages itself or that the exporter sets; configuring them is an error. */
    private static final Set<String> RESERVED_HEADERS = Set.of(
            "connection", "content-length", "expect", "host", "upgrade", "content-type", "content-encoding");

    public OtlpExportSettings {
        Objects.requireNonNull(endpoint, "relay.otlp.endpoint");
        String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || endpoint.getHost() == null) {
            throw new IllegalArgumentException(
                    "relay.otlp.endpoint must be an absolute http(s) URI with a host, got '" + endpoint + "'");
        }
        TreeMap<String, String> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Map.Entry<String, String> header : headers.entrySet()) {
            if (RESERVED_HEADERS.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException(
                        "relay.otlp.headers." + header.getKey() + " cannot be configured: the exporter sets it");
            }
            copy.put(header.getKey(), Objects.requireNonNull(header.getValue(), header.getKey()));
        }
        headers = java.util.Collections.unmodifiableMap(copy);
        Objects.requireNonNull(compression, "relay.otlp.compression");
        requirePositive(connectTimeout, "relay.otlp.connect-timeout");
        requirePositive(timeout, "relay.otlp.timeout");
        requirePositive(queueCapacity, "relay.otlp.queue-capacity");
        requirePositive(queueMaxBytes, "relay.otlp.queue-max-bytes");
        requirePositive(workers, "relay.otlp.workers");
        requirePositive(maxAttempts, "relay.otlp.max-attempts");
        requirePositive(maxElapsed, "relay.otlp.max-elapsed");
        requirePositive(initialBackoff, "relay.otlp.initial-backoff");
        requirePositive(maxBackoff, "relay.otlp.max-backoff");
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("relay.otlp.max-backoff must not be below relay.otlp.initial-backoff");
        }
        requirePositive(maxRequestBytes, "relay.otlp.max-request-size");
        requirePositive(drainTimeout, "relay.otlp.drain-timeout");
    }

    /** Settings with every default and the given endpoint. */
    public static OtlpExportSettings defaults(URI endpoint) {
        return builder(endpoint).build();
    }

    public static Builder builder(URI endpoint) {
        return builder().endpoint(endpoint);
    }

    /** A builder with every default and no endpoint yet. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from the current values. */
    public Builder toBuilder() {
        return builder(endpoint).headers(headers).compression(compression).connectTimeout(connectTimeout)
                .timeout(timeout).queueCapacity(queueCapacity).queueMaxBytes(queueMaxBytes).workers(workers)
                .maxAttempts(maxAttempts).maxElapsed(maxElapsed).initialBackoff(initialBackoff)
                .maxBackoff(maxBackoff).maxRequestBytes(maxRequestBytes).drainTimeout(drainTimeout);
    }

    private static void requirePositive(Duration value, String key) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(key + " must be a positive duration, got " + value);
        }
    }

    private static void requirePositive(long value, String key) {
        if (value <= 0) {
            throw new IllegalArgumentException(key + " must be positive, got " + value);
        }
    }

    /**
     * Fills unset values with the defaults above. Its setters are named after the settings' keys (but for
     * {@code maxRequestBytes}), so that the relay binds them from its configuration as they are.
     */
    public static final class Builder {
        private URI endpoint;
        private Map<String, String> headers = Map.of();
        private Compression compression = DEFAULT_COMPRESSION;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
        private long queueMaxBytes = DEFAULT_QUEUE_MAX_BYTES;
        private int workers = DEFAULT_WORKERS;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration maxElapsed = DEFAULT_MAX_ELAPSED;
        private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private long maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
        private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;

        private Builder() {
        }

        public Builder endpoint(URI endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        public Builder headers(Map<String, String> headers) {
            this.headers = headers;
            return this;
        }

        public Builder compression(Compression compression) {
            this.compression = compression;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder queueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
            return this;
        }

        public Builder queueMaxBytes(long queueMaxBytes) {
            this.queueMaxBytes = queueMaxBytes;
            return this;
        }

        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder maxElapsed(Duration maxElapsed) {
            this.maxElapsed = maxElapsed;
            return this;
        }

        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
            return this;
        }

        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        public Builder maxRequestBytes(long maxRequestBytes) {
            this.maxRequestBytes = maxRequestBytes;
            return this;
        }

        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        public OtlpExportSettings build() {
            return new OtlpExportSettings(endpoint, headers, compression, connectTimeout, timeout, queueCapacity,
                    queueMaxBytes, workers, maxAttempts, maxElapsed, initialBackoff, maxBackoff, maxRequestBytes,
                    drainTimeout);
        }
    }
}
