package chunkrelay.envelope.pipeline;

import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.OtlpInvariants;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 5 end to end: every recorded SDK request, sent to the relay on a random port, leaves both forms of each
 * chunk in a real S3 server (S3Proxy), once, whatever the repeats; an S3 outage is a 503, never a lost chunk.
 */
class ArchiveAcceptanceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void archivesEveryRecordedChunkAsTwoObjectsReadableBackInBothForms() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            postAll(relay.client(), Fixtures.sdkRequests());

            List<RecordedChunk> recorded = Fixtures.sdkChunks();
            Map<String, String> objects = relay.chunkObjects();
            assertEquals(2 * recorded.size(), objects.size(), "objects: " + objects.keySet());
            assertTrue(relay.objects().keySet().stream().filter(key -> key.startsWith("index/1/")).count()
                    >= recorded.size(), "every chunk in the index by time");
            Map<String, Set<String>> suffixesByStem = objects.keySet().stream().collect(Collectors.groupingBy(
                    key -> key.substring(0, key.indexOf('.')),
                    Collectors.mapping(key -> key.substring(key.indexOf('.')), Collectors.toCollection(TreeSet::new))));
            assertEquals(recorded.size(), suffixesByStem.size());
            suffixesByStem.forEach((stem, suffixes) ->
                    assertEquals(Set.of(".otlp.binpb.zst", ".sentry.json.zst"), suffixes, stem));

            List<ArchivedChunk> archived = relay.archivedChunks();
            for (RecordedChunk chunk : recorded) {
                String chunkId = JSON.readTree(chunk.payload()).path("chunk_id").asText();
                ArchivedChunk stored = archived.stream().filter(a -> a.key().chunkId().equals(chunkId)).findFirst()
                        .orElseThrow(() -> new AssertionError("chunk " + chunkId + " of " + chunk.request()
                                + " is not archived"));
                assertArrayEquals(chunk.payload(), relay.archive().readSentry(stored), chunk.request());
                ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(
                        relay.archive().readOtlp(stored));
                assertEquals(List.of(), OtlpInvariants.check(otlp), chunk.request());
                assertTrue(otlp.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesCount() > 0);
            }
        }
    }

    @Test
    void sendingEverythingAgainSequentiallyFromEightClientsAndToAFreshRelayStoresNothingNew() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            Map<String, String> first;
            try (RunningRelay relay = RunningRelay.start(s3, Map.of())) {
                postAll(relay.client(), Fixtures.sdkRequests());
                first = relay.chunkObjects();
                assertEquals(2 * Fixtures.sdkChunks().size(), relay.chunkObjects().size());

                postAll(relay.client(), Fixtures.sdkRequests());
                ExecutorService clients = Executors.newFixedThreadPool(8);
                try {
                    List<Future<?>> runs = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        runs.add(clients.submit(() -> postAll(relay.client(), Fixtures.sdkRequests())));
                    }
                    for (Future<?> run : runs) {
                        run.get(120, TimeUnit.SECONDS);
                    }
                } finally {
                    clients.shutdownNow();
                }
                assertEquals(first, relay.chunkObjects());
            }
            // a relay that has not seen them (no recent-chunk cache) finds them archived through S3 itself
            try (RunningRelay fresh = RunningRelay.start(s3, Map.of())) {
                postAll(fresh.client(), Fixtures.sdkRequests());
                assertEquals(first, fresh.chunkObjects());
            }
        }
    }

    @Test
    void answers503WithinTheDeadlineWhileS3IsDownThenArchivesTheSamePostOnce() throws Exception {
        Duration deadline = Duration.ofSeconds(2);
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.storage.deadline", deadline.toMillis() + "ms"))) {
            postAll(relay.client(), List.of(Fixtures.sdkRequest("java-8.43.0/001")));
            Map<String, String> before = relay.chunkObjects();
            assertEquals(2, relay.chunkObjects().size());

            SdkRequest node = Fixtures.sdkRequest("node-11.1.0/003");
            s3.stop();
            long start = System.nanoTime();
            RelayClient.Answer down = relay.client().replay(node);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("[archive] 503 with S3 down after " + millis + " ms (deadline " + deadline.toMillis()
                    + " ms)");
            assertEquals(503, down.status(), down.raw());
            // the deadline bounds the archive's retries; the rest is parsing and the machine's load
            assertTrue(millis < deadline.toMillis() + 1500, "answered after " + millis + " ms");

            s3.restart();
            assertEquals(before, relay.chunkObjects(), "nothing half-written under the final keys");
            postAll(relay.client(), List.of(node));
            Map<String, String> after = relay.chunkObjects();
            assertEquals(4, after.size());
            assertEquals(2, after.keySet().stream().filter(key -> key.contains("a1552b44ba7c4b90b4479d8294a8c99f"))
                    .count());
        }
    }

    private static void postAll(RelayClient client, List<SdkRequest> requests) {
        for (SdkRequest request : requests) {
            RelayClient.Answer answer = client.replay(request);
            assertEquals(200, answer.status(), request.name() + ": " + answer.raw());
        }
    }
}
