package chunkrelay.envelope.sdk;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Real Sentry SDKs, run as their own processes with continuous profiling on and their DSN pointed at a relay,
 * deliver profile chunks that show their busy work on the right thread.
 *
 * <p>The relay here is {@link EnvelopeRecorder}; pointing the same runs at the real relay only changes the
 * {@link RelayTarget} handed to {@link SdkRunner#run} and where the chunks for the assertions come from.
 */
class RealSdkEndToEndTest {

    private static final long PROJECT_ID = 42;
    private static final String PUBLIC_KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    private static final Duration BUSY_WORK = Duration.ofSeconds(6);

    @Test
    void nodeSdkDeliversChunksWithItsBusyFunctionsOnTheMainThread() throws IOException {
        Path work = workRoot();
        assertSdkProfiledThroughRecorder(new NodeSdkRunner(work.resolve("node"), work.resolve("logs"), BUSY_WORK));
    }

    @Test
    void javaSdkDeliversChunksWithItsBusyMethodsOnTheirNamedThread() throws IOException {
        Path work = workRoot();
        assertSdkProfiledThroughRecorder(new JavaSdkRunner(work.resolve("java"), work.resolve("logs"), BUSY_WORK));
    }

    private static void assertSdkProfiledThroughRecorder(SdkRunner sdk) throws IOException {
        try (EnvelopeRecorder relay = EnvelopeRecorder.start(PROJECT_ID, PUBLIC_KEY)) {
            SdkRunner.Run run = sdk.run(relay.target());
            System.out.println("[sdk-e2e] " + run.timings() + ", " + relay.envelopes().size() + " envelopes, "
                    + relay.profileChunks().size() + " chunks");
            ProfileChunkAssertions.assertEveryEnvelopeAccepted(sdk.sdk(), relay.envelopes());
            ProfileChunkAssertions.assertBusyWorkProfiled(sdk.expectedProfile(), relay.profileChunks());
        }
    }

    /** {@code envelope/target/sdk-e2e}: next to the test classes, so {@code mvn clean} removes the npm install. */
    private static Path workRoot() {
        try {
            Path testClasses = Path.of(RealSdkEndToEndTest.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI());
            return testClasses.getParent().resolve("sdk-e2e");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
