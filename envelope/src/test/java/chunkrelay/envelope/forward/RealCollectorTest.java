package chunkrelay.envelope.forward;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.sdk.NodeSdkRunner;
import chunkrelay.envelope.sdk.RelayTarget;
import chunkrelay.envelope.testing.OtelCollector;
import chunkrelay.envelope.testing.ResolvedProfiles;
import chunkrelay.envelope.testing.ResolvedProfiles.ResolvedProfile;
import chunkrelay.envelope.testing.ResolvedProfiles.ResolvedSample;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.export.AnswerOutcome;
import chunkrelay.translate.export.ExportCounters;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41: the real OpenTelemetry Collector (built from its modules by {@link OtelCollector}, profiles feature
 * gate on) receives the relay's forwarding of every recorded SDK chunk and of a live Node SDK run, and what its
 * pipeline wrote equals the archived OTLP form of each chunk sample for sample: stacks (every frame's functions,
 * files, lines, mappings and attributes), values, timestamps, attributes and span links, read through each
 * request's own dictionary by the test. Nothing may be dropped or refused on the way: every answer counts as a
 * delivery without partial success, and the Collector wrote one request per chunk.
 */
@Tag("external")
class RealCollectorTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long PROJECT_ID = 42;
    private static final String PUBLIC_KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";

    @BeforeAll
    static void buildTheCollector() {
        OtelCollector.binary();
    }

    @Test
    void collectorWritesEveryRecordedChunkAsArchivedSampleForSample() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtelCollector collector = OtelCollector.start();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.otlp.endpoint", collector.endpoint()))) {
            for (SdkRequest request : Fixtures.sdkRequests()) {
                assertEquals(200, relay.client().replay(request).status(), request.name());
            }
            int chunks = Fixtures.sdkChunks().size();
            Await.until("a delivery marker for every chunk", WAIT, () -> relay.archivedChunks().size() == chunks
                    && relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

            assertCollectorWroteEachChunkAsArchived("recorded chunks", relay, collector);
        }
    }

    @Test
    void collectorWritesALiveNodeSdkRunAsArchivedSampleForSample() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtelCollector collector = OtelCollector.start();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.otlp.endpoint", collector.endpoint(),
                     "relay.projects." + PROJECT_ID + ".keys", List.of(PUBLIC_KEY),
                     // the trace-links path, so forwarded samples carry span links
                     "relay.links.window", "2s", "relay.links.span-log", "true"))) {
            Path work = workRoot();
            NodeSdkRunner node = new NodeSdkRunner(work.resolve("node"), work.resolve("logs"), Duration.ofSeconds(6));
            node.run(new RelayTarget(relay.uri(), PROJECT_ID, PUBLIC_KEY));
            Await.until("the live run's chunks derived and delivered", WAIT, () -> !relay.archivedChunks().isEmpty()
                    && relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

            List<ResolvedProfile> written = assertCollectorWroteEachChunkAsArchived("live Node SDK run", relay,
                    collector);
            assertTrue(written.stream().flatMap(p -> p.samples().stream()).anyMatch(s -> !s.link().isEmpty()),
                    "some forwarded sample links to a span of the SDK's trace");
        }
    }

    /** One Collector request per chunk, each equal to the chunk's archived OTLP form once resolved. */
    private static List<ResolvedProfile> assertCollectorWroteEachChunkAsArchived(String what, RunningRelay relay,
                                                                                OtelCollector collector)
            throws IOException {
        List<ArchivedChunk> chunks = relay.archivedChunks();
        ExportCounters counters = relay.bean(ExportCounters.class);
        assertEquals(chunks.size(), counters.answers(AnswerOutcome.DELIVERED, "ok"),
                what + ": every chunk answered 2xx without partial success");
        assertEquals(0, counters.attempts() - counters.deliveries(), what + ": no retries, no refusals");
        List<ExportProfilesServiceRequest> received = collector.received();
        assertEquals(chunks.size(), received.size(), what + ": the Collector wrote one request per chunk");

        Map<String, ResolvedProfile> archived = byProfileId(chunks.stream()
                .map(chunk -> parse(relay.archive().readOtlp(chunk))).toList());
        Map<String, ResolvedProfile> written = byProfileId(received);
        assertEquals(archived.keySet(), written.keySet(), what + ": the same profiles");
        long samples = 0;
        for (Map.Entry<String, ResolvedProfile> e : archived.entrySet()) {
            ResolvedProfile expected = e.getValue();
            ResolvedProfile actual = written.get(e.getKey());
            List<ResolvedSample> expectedSamples = expected.samples();
            assertEquals(expectedSamples.size(), actual.samples().size(), what + ", profile " + e.getKey());
            for (int i = 0; i < expectedSamples.size(); i++) {
                assertEquals(expectedSamples.get(i), actual.samples().get(i),
                        what + ", profile " + e.getKey() + ", sample " + i);
            }
            assertEquals(expected, actual, what + ", profile " + e.getKey() + " outside its samples");
            samples += expectedSamples.stream().mapToLong(s -> s.timestamps().size()).sum();
        }
        assertTrue(samples > 0, what + ": samples forwarded");
        System.out.println("[otelcol] " + what + ": " + archived.size() + " chunks, " + samples
                + " samples written by the Collector as archived");
        return List.copyOf(written.values());
    }

    private static Map<String, ResolvedProfile> byProfileId(List<ExportProfilesServiceRequest> requests) {
        Map<String, ResolvedProfile> profiles = new TreeMap<>();
        for (ExportProfilesServiceRequest request : requests) {
            for (ResolvedProfile profile : ResolvedProfiles.of(request)) {
                if (profiles.put(profile.profileId(), profile) != null) {
                    throw new AssertionError("profile " + profile.profileId() + " twice");
                }
            }
        }
        return profiles;
    }

    private static ExportProfilesServiceRequest parse(byte[] otlp) {
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (IOException e) {
            throw new AssertionError("an archived OTLP form does not decode", e);
        }
    }

    /** {@code envelope/target/sdk-e2e}, shared with the other live SDK tests so the npm install is reused. */
    private static Path workRoot() {
        try {
            Path testClasses = Path.of(RealCollectorTest.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI());
            return testClasses.getParent().resolve("sdk-e2e");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
