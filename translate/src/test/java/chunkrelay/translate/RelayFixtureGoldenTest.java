package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.ArtTraces;
import com.google.protobuf.TextFormat;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Pins the exact translation of three chunks, so that any change in the mapping shows up in review as a diff of
 * {@code golden/*.txtpb}: Relay's own sample v2 fixture (cocoa); vroomrs's Android chunk in Sample Format V2 (the ANR
 * shape; added with issue 15 to pin JVM function names, {@code package.Class.method}, next to a native frame); and a
 * small hand-made ART trace chunk (issue 15: frames from a trace's method table, the JNI signature in
 * {@code system_name}, gaps filled at the interval). The cocoa golden did not change with issue 15: only frames of
 * JVM platforms are named differently.
 */
class RelayFixtureGoldenTest {
    private static final String REGENERATE = "mvn -B -q -pl translate -am test -Dtest=RelayFixtureGoldenTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dgolden.update=true";

    private static ProfileChunk chunk(String source) {
        if (source.equals("art-trace")) {
            byte[] trace = ArtTraces.builder().elapsedMicros("60000").thread(7, "main").thread(9, "RenderThread")
                    .method(0, "android.app.ActivityThread", "main", "([Ljava/lang/String;)V", "ActivityThread.java")
                    .method(1, "io.example.MainActivity", "onCreate", "(Landroid/os/Bundle;)V", "MainActivity.java")
                    .enter(7, 0, 1_000).enter(9, 0, 1_500).enter(7, 1, 11_000).exit(7, 1, 41_000).enter(7, 5, 51_000)
                    .build();
            return FixtureChunks.androidTraceChunk(source, trace).chunk();
        }
        return FixtureChunks.sentryFixture(source).chunk();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"relay/sample_v2_valid.json, relay_sample_v2_valid.txtpb",
            "vroomrs/sample__v2__valid_android.json, vroomrs_sample_v2_valid_android.txtpb",
            "art-trace, android_art_trace_small.txtpb"})
    void translatesExactlyAsPinned(String source, String goldenName) throws IOException {
        String golden = "golden/" + goldenName;
        ExportProfilesServiceRequest request = new ChunkTranslator("chunk-relay", "golden").translate(
                chunk(source), TranslationContext.forProject(1));
        OtlpInvariants.assertValid(request);
        String actual = TextFormat.printer().printToString(request);

        if (Boolean.getBoolean("golden.update")) {
            // surefire runs in the module directory; a run that rewrites the golden file proves nothing, so it fails
            Files.writeString(Path.of("src/test/resources", golden), actual, StandardCharsets.UTF_8);
            fail("rewrote translate/src/test/resources/" + golden + " (golden.update=true); review its diff, then run"
                    + " the test again without golden.update");
        }
        assertEquals(golden(golden), actual, "The OTLP translation of " + source + " changed. If the change is "
                + "deliberate, regenerate translate/src/test/resources/" + golden + " with\n  " + REGENERATE
                + "\nand review its diff in the commit.");
    }

    private static String golden(String golden) throws IOException {
        try (InputStream in = RelayFixtureGoldenTest.class.getResourceAsStream("/" + golden)) {
            assertNotNull(in, golden + " is missing; create it with: " + REGENERATE);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
