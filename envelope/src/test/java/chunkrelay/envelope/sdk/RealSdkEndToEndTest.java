package chunkrelay.envelope.sdk;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Real Sentry SDKs, run as their own processes with continuous profiling on and their DSN pointed at the real
 * relay (Micronaut server on a random port, archive in an in-process S3Proxy, forwarding to a test OTLP receiver),
 * through a recording hop that checks every answer. Each run's chunks must show the busy work on the right thread,
 * be archived in both forms, translate to valid OTLP showing the same, and reach the OTLP receiver. Failures name
 * the SDK and the step.
 */
@Tag("external")
class RealSdkEndToEndTest {

    private static final long PROJECT_ID = 42;
    private static final String PUBLIC_KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    private static final Duration BUSY_WORK = Duration.ofSeconds(6);
    private static final Duration FORWARDING_WAIT = Duration.ofSeconds(30);

    @Test
    void nodeSdkDeliversChunksWithItsBusyFunctionsOnTheMainThread() throws Exception {
        Path work = workRoot();
        assertSdkProfiledThroughRelay(new NodeSdkRunner(work.resolve("node"), work.resolve("logs"), BUSY_WORK));
    }

    @Test
    void javaSdkDeliversChunksWithItsBusyMethodsOnTheirNamedThread() throws Exception {
        Path work = workRoot();
        assertSdkProfiledThroughRelay(new JavaSdkRunner(work.resolve("java"), work.resolve("logs"), BUSY_WORK));
    }

    @Test
    void pythonSdkInTheTraceLifecycleLinksSamplesToTheSpansThatRanThem() throws Exception {
        assertPythonProfiledThroughRelay("trace");
    }

    @Test
    void pythonSdkInTheManualLifecycleLinksSamplesToTheSpansThatRanThem() throws Exception {
        assertPythonProfiledThroughRelay("manual");
    }

    /**
     * As for every SDK, then: the workload's functions named {@code module.Class.method}, at least 95% of the
     * samples taken inside a span linked to it and none to a span that does not cover it, and the functions in the
     * relay's own export of the project.
     */
    private static void assertPythonProfiledThroughRelay(String lifecycle) throws Exception {
        Path work = workRoot();
        PythonSdkRunner python = new PythonSdkRunner(work.resolve("python"), work.resolve("logs"), BUSY_WORK,
                lifecycle);
        assertSdkProfiledThroughRelay(python, (relay, hop, otlp) -> {
            SpanLinkAssertions.assertSamplesLinkedToTheSpansThatRanThem(python.sdk(), hop.envelopes(), otlp,
                    PythonSdkRunner.SPAN_FUNCTIONS, 0.95);
            assertExportNames(python.sdk(), relay, PythonSdkRunner.SPAN_FUNCTIONS);
        });
    }

    /** What a test adds to the checks every SDK passes, with the relay still running. */
    @FunctionalInterface
    private interface MoreChecks {
        void check(RunningRelay relay, EnvelopeRecorder hop, List<ExportProfilesServiceRequest> otlp)
                throws IOException, InterruptedException;
    }

    private static void assertSdkProfiledThroughRelay(SdkRunner sdk) throws IOException, InterruptedException {
        assertSdkProfiledThroughRelay(sdk, (relay, hop, otlp) -> { });
    }

    private static void assertSdkProfiledThroughRelay(SdkRunner sdk, MoreChecks more)
            throws IOException, InterruptedException {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start();
             TestUpstream upstream = new TestUpstream();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.otlp.endpoint", receiver.endpoint(),
                     "relay.projects." + PROJECT_ID + ".keys", List.of(PUBLIC_KEY),
                     "relay.upstream.url", upstream.uri().toString(),
                     // the trace-links path: the OTLP form after a short window, with the span log
                     "relay.links.window", "2s", "relay.links.span-log", "true"));
             EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(new RelayTarget(relay.uri(), PROJECT_ID,
                     PUBLIC_KEY))) {
            SdkRunner.Run run = sdk.run(hop.target());
            ProfileChunkAssertions.assertEveryEnvelopeAccepted(sdk.sdk(), hop.envelopes());
            ProfileChunkAssertions.assertBusyWorkProfiled(sdk.expectedProfile(), hop.profileChunks());
            int sentChunks = hop.profileChunkPayloads().size();
            Await.until(sdk.sdk() + " chunks derived after their link window", FORWARDING_WAIT,
                    () -> relay.archivedChunks().size() >= sentChunks);

            List<ArchivedChunk> archived = assertArchivedInBothForms(sdk.sdk(), relay, hop.profileChunkPayloads());
            List<ExportProfilesServiceRequest> otlp = new ArrayList<>();
            for (ArchivedChunk chunk : archived) {
                ExportProfilesServiceRequest request = parse(sdk.sdk(), chunk, relay.archive().readOtlp(chunk));
                OtlpProfileAssertions.assertValid(sdk.sdk(), chunk.key().stem(), request);
                otlp.add(request);
            }
            OtlpProfileAssertions.assertBusyWorkProfiled(sdk.expectedProfile(), otlp);
            assertForwarded(sdk.sdk(), relay, archived, receiver);
            assertLinkedSamplesForwarded(sdk.sdk(), receiver);
            assertPassedUpstream(sdk.sdk(), upstream);
            more.check(relay, hop, otlp);
            System.out.println("[sdk-e2e] " + run.timings() + ", " + hop.envelopes().size() + " envelopes, "
                    + hop.profileChunks().size() + " chunks sent, " + archived.size() + " archived and forwarded");
        }
    }

    /** At least one chunk, each archived chunk's Sentry form byte-identical to a payload the SDK sent. */
    private static List<ArchivedChunk> assertArchivedInBothForms(String sdk, RunningRelay relay, List<byte[]> sent) {
        List<ArchivedChunk> archived = relay.archivedChunks();
        if (archived.isEmpty()) {
            throw new AssertionError(sdk + " SDK, step 'archive': none of the " + sent.size()
                    + " chunks sent was archived; objects: " + relay.objects().keySet());
        }
        Set<String> sentPayloads = sent.stream().map(HexFormat.of()::formatHex).collect(Collectors.toSet());
        for (ArchivedChunk chunk : archived) {
            if (chunk.sentryObjectKey() == null) {
                throw new AssertionError(sdk + " SDK, step 'archive': " + chunk.key().stem()
                        + " has its OTLP form only");
            }
            if (!sentPayloads.contains(HexFormat.of().formatHex(relay.archive().readSentry(chunk)))) {
                throw new AssertionError(sdk + " SDK, step 'archive': the Sentry form of " + chunk.key().stem()
                        + " is not byte-identical to any chunk payload the SDK sent");
            }
        }
        return archived;
    }

    private static ExportProfilesServiceRequest parse(String sdk, ArchivedChunk chunk, byte[] otlp) {
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError(sdk + " SDK, step 'otlp': the OTLP form of " + chunk.key().stem()
                    + " does not decode: " + e.getMessage(), e);
        }
    }

    /** Some forwarded sample links to a span of the SDK's own trace (a transaction, or span items). */
    private static void assertLinkedSamplesForwarded(String sdk, OtlpReceiver receiver) {
        long linked = receiver.received().stream()
                .flatMap(r -> r.request().getResourceProfilesList().stream())
                .flatMap(r -> r.getScopeProfilesList().stream())
                .flatMap(s -> s.getProfilesList().stream())
                .flatMap(p -> p.getSamplesList().stream())
                .filter(sample -> sample.getLinkIndex() != 0)
                .mapToLong(sample -> sample.getTimestampsUnixNanoCount())
                .sum();
        if (linked == 0) {
            throw new AssertionError(sdk + " SDK, step 'links': no forwarded sample links to a span of its trace");
        }
        System.out.println("[sdk-e2e] " + sdk + ": " + linked + " forwarded samples linked to spans");
    }

    /**
     * The SDK's error, its trace (a transaction, or span items from SDKs that stream spans) and its session reach the
     * upstream Sentry; its profile chunks do not.
     */
    private static void assertPassedUpstream(String sdk, TestUpstream upstream) throws InterruptedException {
        try {
            Await.until("the upstream to get an error, a transaction or spans, and a session", FORWARDING_WAIT,
                    () -> upstreamTypes(upstream).containsAll(Set.of("event", "session"))
                            && (upstreamTypes(upstream).contains("transaction")
                            || upstreamTypes(upstream).contains("span")));
        } catch (AssertionError e) {
            throw new AssertionError(sdk + " SDK, step 'upstream': " + e.getMessage() + "; item types upstream: "
                    + upstreamTypes(upstream), e);
        }
        if (upstreamTypes(upstream).contains("profile_chunk")) {
            throw new AssertionError(sdk + " SDK, step 'upstream': profile chunks went upstream");
        }
    }

    private static Set<String> upstreamTypes(TestUpstream upstream) {
        return upstream.accepted().stream().flatMap(r -> r.items().stream()).map(TestUpstream.Item::type)
                .collect(Collectors.toSet());
    }

    /** Every archived chunk reaches the receiver, byte for byte, and the relay marks it delivered. */
    private static void assertForwarded(String sdk, RunningRelay relay, List<ArchivedChunk> archived,
                                        OtlpReceiver receiver) throws InterruptedException {
        List<String> expected = archived.stream()
                .map(chunk -> HexFormat.of().formatHex(relay.archive().readOtlp(chunk))).sorted().toList();
        try {
            Await.until("the OTLP receiver to get " + expected.size() + " profile(s)", FORWARDING_WAIT,
                    () -> receiver.received().size() >= expected.size());
            Await.until("delivery markers", FORWARDING_WAIT,
                    () -> relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));
        } catch (AssertionError e) {
            throw new AssertionError(sdk + " SDK, step 'forward': " + e.getMessage() + "; received "
                    + receiver.received().size() + ", attempts " + receiver.attempts(), e);
        }
        List<String> received = receiver.received().stream().map(OtlpReceiver.Received::hex).sorted().toList();
        if (!expected.equals(received)) {
            throw new AssertionError(sdk + " SDK, step 'forward': the receiver got " + received.size()
                    + " profile(s) that are not the " + expected.size() + " archived OTLP objects once each");
        }
    }

    /**
     * The relay's collapsed-stacks export of the project's Python chunks, over the day around now (read from the
     * loopback, which the views answer without a token), names each function.
     */
    private static void assertExportNames(String sdk, RunningRelay relay, List<String> functions) {
        Instant now = Instant.now();
        String range = "from=" + now.minus(Duration.ofHours(12)).truncatedTo(ChronoUnit.SECONDS) + "&to="
                + now.plus(Duration.ofHours(12)).truncatedTo(ChronoUnit.SECONDS);
        RelayClient.Answer export = relay.client().get("/api/v1/projects/" + PROJECT_ID + "/profile?" + range
                + "&platform=python&format=collapsed");
        if (export.status() != 200) {
            throw new AssertionError(sdk + " SDK, step 'views': the collapsed export answered " + export.status()
                    + ": " + export.raw());
        }
        for (String function : functions) {
            if (!export.raw().contains(";" + function + ";") && !export.raw().contains(";" + function + " ")) {
                throw new AssertionError(sdk + " SDK, step 'views': the collapsed export does not name '" + function
                        + "'");
            }
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
