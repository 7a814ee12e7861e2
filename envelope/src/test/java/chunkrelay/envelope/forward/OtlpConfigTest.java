package chunkrelay.envelope.forward;

import chunkrelay.envelope.recovery.ReplayCommand;
import chunkrelay.translate.export.Compression;
import chunkrelay.translate.export.OtlpExportSettings;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code relay.otlp.*} becomes the exporter's settings; without an endpoint nothing is forwarded. */
class OtlpConfigTest {

    @Test
    void mapsEveryKeyOntoTheExportSettings() {
        Map<String, Object> properties = Map.ofEntries(
                Map.entry("relay.otlp.endpoint", "http://collector:4318"),
                Map.entry("relay.otlp.headers.X-Scope-OrgID", "tenant-a"),
                Map.entry("relay.otlp.headers.authorization", "Bearer t0ken"),
                Map.entry("relay.otlp.compression", "none"),
                Map.entry("relay.otlp.connect-timeout", "2s"),
                Map.entry("relay.otlp.timeout", "7s"),
                Map.entry("relay.otlp.queue-capacity", "12"),
                Map.entry("relay.otlp.queue-max-bytes", "8MB"),
                Map.entry("relay.otlp.workers", "3"),
                Map.entry("relay.otlp.max-attempts", "4"),
                Map.entry("relay.otlp.max-elapsed", "20s"),
                Map.entry("relay.otlp.initial-backoff", "200ms"),
                Map.entry("relay.otlp.max-backoff", "5s"),
                Map.entry("relay.otlp.max-request-size", "1048576"),
                Map.entry("relay.otlp.drain-timeout", "9s"));
        try (ApplicationContext context = ApplicationContext.run(properties, "test")) {
            OtlpExportSettings settings = context.getBean(OtlpConfig.class).settings();
            assertEquals(URI.create("http://collector:4318"), settings.endpoint());
            assertEquals("tenant-a", settings.headers().get("X-Scope-OrgID"));
            assertEquals("Bearer t0ken", settings.headers().get("Authorization"));
            assertEquals(2, settings.headers().size(), settings.headers().keySet().toString());
            assertEquals(Compression.NONE, settings.compression());
            assertEquals(Duration.ofSeconds(2), settings.connectTimeout());
            assertEquals(Duration.ofSeconds(7), settings.timeout());
            assertEquals(12, settings.queueCapacity());
            assertEquals(8L * 1024 * 1024, settings.queueMaxBytes());
            assertEquals(3, settings.workers());
            assertEquals(4, settings.maxAttempts());
            assertEquals(Duration.ofSeconds(20), settings.maxElapsed());
            assertEquals(Duration.ofMillis(200), settings.initialBackoff());
            assertEquals(Duration.ofSeconds(5), settings.maxBackoff());
            assertEquals(1048576, settings.maxRequestBytes());
            assertEquals(Duration.ofSeconds(9), settings.drainTimeout());
            assertInstanceOf(OtlpChunkForwarder.class, context.getBean(ChunkForwarder.class));
        }
    }

    @Test
    void byteSizesAreReadInEitherNotationAndHeaderNamesAsWritten() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.otlp.endpoint",
                "http://collector:4318", "relay.otlp.max-request-size", "2MB", "relay.otlp.queue-max-bytes", "4096",
                "relay.otlp.headers.X-Scope-OrgID", "tenant-a"), "test")) {
            OtlpExportSettings settings = context.getBean(OtlpConfig.class).settings();
            assertEquals(2L * 1024 * 1024, settings.maxRequestBytes());
            assertEquals(4096, settings.queueMaxBytes());
            assertEquals(java.util.Set.of("X-Scope-OrgID"), java.util.Set.copyOf(settings.headers().keySet()));
        }
    }

    @Test
    void environmentVariablesSetTheExportersSettings() {
        PropertySource environment = PropertySource.of("env", Map.of(
                "RELAY_OTLP_ENDPOINT", "http://collector:4318",
                "RELAY_OTLP_CONNECT_TIMEOUT", "3s",
                "RELAY_OTLP_MAX_ATTEMPTS", "7",
                "RELAY_OTLP_DRAIN_TIMEOUT", "4s",
                "RELAY_OTLP_QUEUE_MAX_BYTES", "16MB",
                "RELAY_OTLP_MAX_REQUEST_SIZE", "2MB",
                "RELAY_OTLP_COMPRESSION", "none",
                "RELAY_OTLP_MAX_AGE", "1h"), PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE);
        try (ApplicationContext context = ApplicationContext.builder("test").propertySources(environment).start()) {
            OtlpConfig config = context.getBean(OtlpConfig.class);
            assertEquals(OtlpExportSettings.builder(URI.create("http://collector:4318"))
                    .connectTimeout(Duration.ofSeconds(3)).maxAttempts(7).drainTimeout(Duration.ofSeconds(4))
                    .queueMaxBytes(16L * 1024 * 1024).maxRequestBytes(2L * 1024 * 1024).compression(Compression.NONE)
                    .build(), config.settings());
            assertEquals(Duration.ofHours(1), config.maxAge());
        }
    }

    @Test
    void unsetKeysTakeTheExporterDefaults() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.otlp.endpoint",
                "http://collector:4318"), "test")) {
            assertEquals(OtlpExportSettings.defaults(URI.create("http://collector:4318")),
                    context.getBean(OtlpConfig.class).settings());
        }
    }

    @Test
    void withoutAnEndpointChunksAreOnlyArchived() {
        try (ApplicationContext context = ApplicationContext.run("test")) {
            assertInstanceOf(NoChunkForwarder.class, context.getBean(ChunkForwarder.class));
            assertFalse(context.containsBean(ReplayCommand.class));
            assertTrue(context.containsBean(chunkrelay.translate.export.ExportCounters.class));
        }
    }

    @Test
    void aBadValueNamesItsKey() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.otlp.endpoint",
                "http://collector:4318", "relay.otlp.compression", "brotli"), "test")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> context.getBean(OtlpConfig.class).settings());
            assertTrue(e.getMessage().contains("relay.otlp.compression"), e.getMessage());
        }
    }
}
