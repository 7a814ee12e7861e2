package chunkrelay.envelope.forward;

import chunkrelay.translate.export.Compression;
import chunkrelay.translate.export.OtlpExportSettings;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.format.MapFormat;
import io.micronaut.core.convert.format.ReadableBytes;
import io.micronaut.core.naming.conventions.StringConvention;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * OTLP forwarding, {@code relay.otlp.*}: off unless {@code endpoint} is set (env {@code RELAY_OTLP_ENDPOINT}).
 * Unset values take {@link OtlpExportSettings}'s defaults, which document each key.
 *
 * @param endpoint        base URI of the OTLP/HTTP receiver, e.g. {@code http://collector:4318}
 * @param headers         extra request headers, {@code relay.otlp.headers.<name>}; names are kept as written
 *                        (YAML, {@code -D} properties, or {@code MICRONAUT_APPLICATION_JSON} in the environment:
 *                        environment variable names cannot spell them)
 * @param compression     {@code gzip} or {@code none}
 * @param maxAttempts     attempts per request before a retryable failure is final (the retry budget, with
 *                        {@code maxElapsed})
 * @param maxRequestSize  requests above it are sent in parts
 * @param maxAge          the endpoint's acceptance window, if it has one: profiles older than this are refused
 *                        there (Pyroscope: 1h by default); {@code replay} warns before sending such profiles. Unset
 *                        by default (the Collector has no window)
 */
@ConfigurationProperties("relay.otlp")
public record OtlpConfig(@Nullable URI endpoint, @Nullable @MapFormat(transformation = MapFormat.MapTransformation.FLAT,
                                 keyFormat = StringConvention.RAW) Map<String, String> headers, @Nullable String compression,
                         @Nullable Duration connectTimeout, @Nullable Duration timeout,
                         @Nullable Integer queueCapacity, @Nullable @ReadableBytes Long queueMaxBytes,
                         @Nullable Integer workers, @Nullable Integer maxAttempts, @Nullable Duration maxElapsed,
                         @Nullable Duration initialBackoff, @Nullable Duration maxBackoff,
                         @Nullable @ReadableBytes Long maxRequestSize, @Nullable Duration drainTimeout,
                         @Nullable Duration maxAge) {

    public OtlpConfig {
        if (maxAge != null && (maxAge.isNegative() || maxAge.isZero())) {
            throw new IllegalArgumentException("relay.otlp.max-age must be positive, got " + maxAge);
        }
    }

    /**
     * The exporter's settings.
     *
     * @throws IllegalStateException when no endpoint is configured
     * @throws IllegalArgumentException when a value is out of range (the message names the key)
     */
    public OtlpExportSettings settings() {
        if (endpoint == null) {
            throw new IllegalStateException("relay.otlp.endpoint (env RELAY_OTLP_ENDPOINT) is not set");
        }
        OtlpExportSettings.Builder builder = OtlpExportSettings.builder(endpoint);
        if (headers != null) {
            builder.headers(headers);
        }
        if (compression != null) {
            builder.compression(Compression.parse(compression));
        }
        if (connectTimeout != null) {
            builder.connectTimeout(connectTimeout);
        }
        if (timeout != null) {
            builder.timeout(timeout);
        }
        if (queueCapacity != null) {
            builder.queueCapacity(queueCapacity);
        }
        if (queueMaxBytes != null) {
            builder.queueMaxBytes(queueMaxBytes);
        }
        if (workers != null) {
            builder.workers(workers);
        }
        if (maxAttempts != null) {
            builder.maxAttempts(maxAttempts);
        }
        if (maxElapsed != null) {
            builder.maxElapsed(maxElapsed);
        }
        if (initialBackoff != null) {
            builder.initialBackoff(initialBackoff);
        }
        if (maxBackoff != null) {
            builder.maxBackoff(maxBackoff);
        }
        if (maxRequestSize != null) {
            builder.maxRequestBytes(maxRequestSize);
        }
        if (drainTimeout != null) {
            builder.drainTimeout(drainTimeout);
        }
        return builder.build();
    }

    @Override
    public String toString() {
        // header values are often tokens: names only
        return "OtlpConfig[endpoint=" + endpoint + ", headers=" + (headers == null ? "[]" : headers.keySet())
                + ", compression=" + compression + "]";
    }
}
