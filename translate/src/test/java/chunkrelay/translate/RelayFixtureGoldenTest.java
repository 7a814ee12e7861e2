package chunkrelay.translate;

import com.google.protobuf.TextFormat;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Pins the exact translation of Relay's own sample v2 fixture, so that any change in the mapping
 * shows up in review as a diff of {@code golden/relay_sample_v2_valid.txtpb}.
 */
class RelayFixtureGoldenTest {
    private static final String GOLDEN = "golden/relay_sample_v2_valid.txtpb";
    private static final String REGENERATE = "mvn -B -q -pl translate -am test -Dtest=RelayFixtureGoldenTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dgolden.update=true";

    @Test
    void translatesTheRelayFixtureExactlyAsPinned() throws IOException {
        ExportProfilesServiceRequest request = new ChunkTranslator("chunk-relay", "golden").translate(
                FixtureChunks.sentryFixture("relay/sample_v2_valid.json").chunk(), TranslationContext.forProject(1));
        OtlpInvariants.assertValid(request);
        String actual = TextFormat.printer().printToString(request);

        if (Boolean.getBoolean("golden.update")) {
            // surefire runs in the module directory
            Files.writeString(Path.of("src/test/resources", GOLDEN), actual, StandardCharsets.UTF_8);
        }
        String expected = Boolean.getBoolean("golden.update")
                ? Files.readString(Path.of("src/test/resources", GOLDEN), StandardCharsets.UTF_8)
                : golden();
        assertEquals(expected, actual, "The OTLP translation of relay/sample_v2_valid.json changed. If the change "
                + "is deliberate, regenerate translate/src/test/resources/" + GOLDEN + " with\n  " + REGENERATE
                + "\nand review its diff in the commit.");
    }

    private static String golden() throws IOException {
        try (InputStream in = RelayFixtureGoldenTest.class.getResourceAsStream("/" + GOLDEN)) {
            assertNotNull(in, GOLDEN + " is missing; create it with: " + REGENERATE);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
