package chunkrelay.envelope.forward;

import chunkrelay.translate.export.Compression;
import chunkrelay.translate.export.OtlpExportSettings;
import io.micronaut.context.annotation.ConfigurationBuilder;
import io.micronaut.context.annotation.ConfigurationInject;
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
 * The exporter's settings are bound onto {@link OtlpExportSettings.Builder} under its setters' names, so that each
 * is declared once, there, with its default; unset values keep that default. Declared here are only the keys that
 * need the relay's own handling: the endpoint (the on/off switch), the settings whose values Micronaut reads in
 * a format of its own (header names kept as written, byte sizes such as {@code 64MB}), the compression (read when
 * the settings are asked for, naming its key when it is wrong) and {@code max-age}, which is not the exporter's.
 */
@ConfigurationProperties("relay.otlp")
public class OtlpConfig {

    /** Setters taking a value in a format of Micronaut's, or handled here, are left to the constructor. */
    @ConfigurationBuilder(prefixes = "", excludes = {"endpoint", "headers", "compression", "queueMaxBytes",
            "maxRequestBytes"})
    final OtlpExportSettings.Builder exporter = OtlpExportSettings.builder();

    private final URI endpoint;
    private final Map<String, String> headers;
    private final String compression;
    private final Duration maxAge;

    /**
     * The keys handled here; Micronaut sets the builder's own after this.
     *
     * @param endpoint       base URI of the OTLP/HTTP receiver, e.g. {@code http://collector:4318}
     * @param headers        extra request headers, {@code relay.otlp.headers.<name>}; names are kept as written
     *                       (YAML, {@code -D} properties, or {@code MICRONAUT_APPLICATION_JSON} in the environment:
     *                       environment variable names cannot spell them)
     * @param compression    {@code gzip} or {@code none}
     * @param queueMaxBytes  total body bytes the forwarding queue holds
     * @param maxRequestSize requests above it are sent in parts
     * @param maxAge         the endpoint's acceptance window, if it has one: profiles older than this are refused
     *                       there (Pyroscope: 1h by default); {@code replay} warns before sending such profiles.
     *                       Unset by default (the Collector has no window)
     */
    @ConfigurationInject
    public OtlpConfig(@Nullable URI endpoint,
                      @Nullable @MapFormat(transformation = MapFormat.MapTransformation.FLAT,
                              keyFormat = StringConvention.RAW) Map<String, String> headers,
                      @Nullable String compression, @Nullable @ReadableBytes Long queueMaxBytes,
                      @Nullable @ReadableBytes Long maxRequestSize, @Nullable Duration maxAge) {
        if (maxAge != null && (maxAge.isNegative() || maxAge.isZero())) {
            throw new IllegalArgumentException("relay.otlp.max-age must be positive, got " + maxAge);
        }
        this.endpoint = endpoint;
        this.headers = headers;
        this.compression = compression;
        this.maxAge = maxAge;
        exporter.endpoint(endpoint);
        if (headers != null) {
            exporter.headers(headers);
        }
        if (queueMaxBytes != null) {
            exporter.queueMaxBytes(queueMaxBytes);
        }
        if (maxRequestSize != null) {
            exporter.maxRequestBytes(maxRequestSize);
        }
    }

    /** {@code relay.otlp.max-age}, null when unset. */
    public Duration maxAge() {
        return maxAge;
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
        Compression parsed = compression == null ? null : Compression.parse(compression);
        OtlpExportSettings settings = exporter.build();
        return parsed == null ? settings : settings.toBuilder().compression(parsed).build();
    }

    @Override
    public String toString() {
        // header values are often tokens: names only
        return "OtlpConfig[endpoint=" + endpoint + ", headers=" + (headers == null ? "[]" : headers.keySet())
                + ", compression=" + compression + "]";
    }
}
