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
import static org.junit.jupiter.api.Assertions.fail;

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
            // surefire runs in the module directory; a run that rewrites the golden file proves nothing, so it fails
            Files.writeString(Path.of("src/test/resources", GOLDEN), actual, StandardCharsets.UTF_8);
            fail("rewrote translate/src/test/resources/" + GOLDEN + " (golden.update=true); review its diff, then run"
                    + " the test again without golden.update");
        }
        assertEquals(golden(), actual, "The OTLP translation of relay/sample_v2_valid.json changed. If the change "
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
