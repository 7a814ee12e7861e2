package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OtlpExportSettingsTest {
    private static final URI COLLECTOR = URI.create("http://collector:4318");

    @Test
    void defaultsFollowTheDocumentedValues() {
        OtlpExportSettings settings = OtlpExportSettings.defaults(COLLECTOR);

        assertEquals(Map.of(), settings.headers());
        assertEquals(Compression.GZIP, settings.compression());
        assertEquals(Duration.ofSeconds(5), settings.connectTimeout());
        assertEquals(Duration.ofSeconds(10), settings.timeout());
        assertEquals(256, settings.queueCapacity());
        assertEquals(256L << 20, settings.queueMaxBytes());
        assertEquals(2, settings.workers());
        assertEquals(5, settings.maxAttempts());
        assertEquals(Duration.ofSeconds(60), settings.maxElapsed());
        assertEquals(Duration.ofSeconds(1), settings.initialBackoff());
        assertEquals(Duration.ofSeconds(30), settings.maxBackoff());
        assertEquals(64L << 20, settings.maxRequestBytes());
        assertEquals(Duration.ofSeconds(30), settings.drainTimeout());
        assertEquals(settings, settings.toBuilder().build());
    }

    @ParameterizedTest
    @CsvSource({
        "http://collector:4318, http://collector:4318/v1development/profiles",
        "http://collector:4318/, http://collector:4318/v1development/profiles",
        "https://gateway.example/otlp, https://gateway.example/otlp/v1development/profiles",
        "https://gateway.example/otlp/, https://gateway.example/otlp/v1development/profiles",
        "http://127.0.0.1:4318/a/b//?tenant=7, http://127.0.0.1:4318/a/b/v1development/profiles?tenant=7",
    })
    void appendsTheProfilesPathWithOrWithoutATrailingSlash(String endpoint, String expected) {
        assertEquals(URI.create(expected), OtlpHttpExporter.profilesUri(URI.create(endpoint)));
    }

    @Test
    void rejectsAnEndpointThatIsNotAnAbsoluteHttpUri() {
        assertThrows(IllegalArgumentException.class, () -> OtlpExportSettings.defaults(URI.create("collector:4318")));
        assertThrows(IllegalArgumentException.class, () -> OtlpExportSettings.defaults(URI.create("/v1")));
        assertThrows(IllegalArgumentException.class,
                () -> OtlpExportSettings.defaults(URI.create("grpc://collector:4317")));
    }

    @Test
    void rejectsHeadersTheExporterSetsItself() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OtlpExportSettings
                .builder(COLLECTOR).headers(Map.of("Content-Encoding", "br")).build());
        assertTrue(e.getMessage().contains("relay.otlp.headers.Content-Encoding"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> OtlpExportSettings
                .builder(COLLECTOR).headers(Map.of("host", "elsewhere")).build());
    }

    @Test
    void rejectsNonPositiveLimitsNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OtlpExportSettings.builder(COLLECTOR).queueCapacity(0).build());
        assertTrue(e.getMessage().contains("relay.otlp.queue-capacity"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> OtlpExportSettings.builder(COLLECTOR).timeout(Duration.ZERO).build());
        assertThrows(IllegalArgumentException.class, () -> OtlpExportSettings.builder(COLLECTOR)
                .initialBackoff(Duration.ofSeconds(5)).maxBackoff(Duration.ofSeconds(1)).build());
    }

    @Test
    void parsesCompressionNames() {
        assertEquals(Compression.GZIP, Compression.parse("gzip"));
        assertEquals(Compression.NONE, Compression.parse(" None "));
        assertThrows(IllegalArgumentException.class, () -> Compression.parse("zstd"));
    }
}
