package chunkrelay.translate;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The OTLP form of a real chunk is smaller than the SDK's JSON, plain and gzipped. */
class OtlpSizeTest {

    @ParameterizedTest
    @ValueSource(strings = {"node-11.1.0/003", "node-11.1.0-long/001", "java-8.43.0/001"})
    void encodesRealChunksSmallerThanTheirJson(String request) {
        FixtureChunks.Normalised fixture = FixtureChunks.sdkChunk(request);
        byte[] otlp = new ChunkTranslator("chunk-relay", "test")
                .translate(fixture.chunk(), TranslationContext.forProject(1)).toByteArray();
        byte[] json = fixture.json();
        int gzippedJson = gzip(json).length;
        int gzippedOtlp = gzip(otlp).length;

        System.out.printf(Locale.ROOT, "%-22s JSON %9d B, gzip %8d B | OTLP %9d B (%.3f of JSON), gzip %8d B "
                        + "(%.3f of gzipped JSON)%n", request, json.length, gzippedJson, otlp.length,
                (double) otlp.length / json.length, gzippedOtlp, (double) gzippedOtlp / gzippedJson);
        assertTrue(otlp.length < json.length, "OTLP " + otlp.length + " B, JSON " + json.length + " B");
        assertTrue(gzippedOtlp < gzippedJson, "gzipped OTLP " + gzippedOtlp + " B, gzipped JSON " + gzippedJson + " B");
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
