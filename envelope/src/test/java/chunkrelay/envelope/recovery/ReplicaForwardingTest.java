package chunkrelay.envelope.recovery;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.ForkedRelay;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.export.ExportCounters;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 18: relays on one bucket behave as one. What two replicas are both sent is archived and forwarded once;
 * what no replica delivered (forwarding off, a replica killed) is delivered once by the recovery passes of the
 * others, however many run.
 */
@Tag("external")
class ReplicaForwardingTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration RECOVERY_INTERVAL = Duration.ofMillis(200);
    private static final Pattern CHUNK_ID = Pattern.compile("\"chunk_id\"\\s*:\\s*\"([0-9a-fA-F]{32})\"");

    @TempDir
    Path work;

    @Test
    void theFixturesSentToTwoRelaysAtOnceAreArchivedOnceAndForwardedOnceEach() throws Exception {
        List<SdkRequest> requests = Fixtures.sdkRequests();
        int chunks = Fixtures.sdkChunks().size();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start();
             RunningRelay a = RunningRelay.start(s3, Map.of("relay.otlp.endpoint", receiver.endpoint()));
             RunningRelay b = RunningRelay.start(s3, Map.of("relay.otlp.endpoint", receiver.endpoint()))) {
            ExecutorService senders = Executors.newFixedThreadPool(2);
            try {
                CyclicBarrier together = new CyclicBarrier(2);
                List<Future<List<Integer>>> statuses = new ArrayList<>();
                for (RunningRelay relay : List.of(a, b)) {
                    statuses.add(senders.submit(() -> {
                        together.await();
                        return requests.stream().map(r -> relay.client().replay(r).status()).toList();
                    }));
                }
                for (Future<List<Integer>> sent : statuses) {
                    assertTrue(sent.get().stream().allMatch(status -> status == 200), sent.get().toString());
                }
            } finally {
                senders.shutdownNow();
            }
            Await.until("a delivery marker for every chunk", WAIT, () -> a.archivedChunks().size() == chunks
                    && a.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

            Map<String, String> objects = a.objects();
            assertEquals(chunks, objects.keySet().stream().filter(k -> k.contains(".otlp.binpb.")).count());
            assertEquals(chunks, objects.keySet().stream().filter(k -> k.contains(".sentry.json.")).count());
            assertEachArchivedChunkReceivedOnce(a.archive(), a.archivedChunks(), receiver);
            long attempts = a.bean(ExportCounters.class).attempts() + b.bean(ExportCounters.class).attempts();
            assertEquals(chunks, attempts, "one export per chunk between the two relays");
        }
    }

    @Test
    void recoveryPassesOfTwoReplicasDeliverEachChunkNoRelayDeliveredExactlyOnce() throws Exception {
        List<SdkRequest> requests = Fixtures.sdkRequests();
        int chunks = Fixtures.sdkChunks().size();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            try (RunningRelay archivingOnly = RunningRelay.start(s3, Map.of())) {
                requests.forEach(r -> assertEquals(200, archivingOnly.client().replay(r).status()));
                assertEquals(chunks, archivingOnly.archivedChunks().size());
            }
            try (RunningRelay a = RunningRelay.start(s3, recovering(receiver));
                 RunningRelay b = RunningRelay.start(s3, recovering(receiver))) {
                Await.until("a delivery marker for every chunk", WAIT, () ->
                        a.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

                assertEachArchivedChunkReceivedOnce(a.archive(), a.archivedChunks(), receiver);
                assertEquals(chunks, recovered(a) + recovered(b));
                assertTrue(a.objects().keySet().stream().noneMatch(k -> k.contains(DeliveryLeases.LEASE_SUFFIX)),
                        "leases are removed after delivery");
            }
        }
    }

    @Test
    void aReplicaKilledMidLoadLeavesNothingUndeliveredAfterTheOtherReplicasRecoveryPass() throws Exception {
        int killAfter = 16;
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            // the target is down while the first replica takes the load: its chunks wait in its queue and retries
            receiver.stop();
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Map<String, Object> config = new HashMap<>(RunningRelay.storageProperties(s3));
            config.put("relay.otlp.endpoint", receiver.endpoint());
            config.put("relay.otlp.workers", 1);
            config.put("relay.recovery.enabled", false);
            // both forms before the 200, as in the test environment: this pins forwarding recovery, and the
            // derivation of chunks killed inside their link window has its own test (TraceLinksTest)
            config.put("relay.links.window", "0s");
            ExecutorService load = Executors.newSingleThreadExecutor();
            try (ForkedRelay killed = ForkedRelay.start(256, work, systemProperties(config))) {
                RelayClient client = new RelayClient(killed.base());
                Future<?> sending = load.submit(() -> {
                    for (int i = 0; i < 1000; i++) {
                        String chunkId = UUID.randomUUID().toString().replace("-", "");
                        try {
                            if (client.post("/api/1/envelope/", nodeEnvelope(chunkId), "X-Sentry-Auth", AUTH)
                                    .status() == 200) {
                                acknowledged.add(chunkId);
                            }
                        } catch (UncheckedIOException goneMidRequest) {
                            return;
                        }
                    }
                });
                Await.until(killAfter + " chunks acknowledged", WAIT, () -> acknowledged.size() >= killAfter);
                assertTrue(killed.alive());
                killed.close(); // SIGKILL while the load goes on
                sending.get();
            } finally {
                load.shutdownNow();
            }
            receiver.restart();
            try (RunningRelay survivor = RunningRelay.start(s3, recovering(receiver))) {
                Set<String> archived = survivor.archivedChunks().stream().map(c -> c.key().chunkId())
                        .collect(Collectors.toSet());
                assertTrue(archived.containsAll(acknowledged), "every acknowledged chunk is archived");
                assertTrue(survivor.archivedChunks().stream().noneMatch(ArchivedChunk::delivered),
                        "the killed replica delivered nothing");

                Await.until("a delivery marker for every chunk", WAIT, () ->
                        survivor.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

                assertEachArchivedChunkReceivedOnce(survivor.archive(), survivor.archivedChunks(), receiver);
                assertEquals(archived.size(), recovered(survivor));
            }
        }
    }

    @Test
    void aRelayWhoseForwardingDeliversListsTheArchiveOnlyAtStartAndAgainOnceItMarksAChunkForReplay()
            throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            Map<String, Object> config = new HashMap<>(recovering(receiver));
            // one attempt: a chunk the target refuses is marked for replay at once
            config.put("relay.otlp.max-attempts", 1);
            // the passes run when the test moves the relay's clock
            config.put("test.clock", "manual");
            try (RunningRelay relay = RunningRelay.start(s3, config)) {
                assertEquals(200, relay.client().replay(request("node-11.1.0-long/001")).status());
                Await.until("the chunk delivered", WAIT, () -> relay.archivedChunks().size() == 1
                        && relay.archivedChunks().get(0).delivered());
                recoveryIntervals(relay, 10);
                assertEquals(1, searches(relay), "the search at start, none while forwarding delivers");

                receiver.stop();
                assertEquals(200, relay.client().replay(request("node-11.1.0-long/002")).status());
                awaitRecoveryIntervals(relay, "a search for the chunk marked for replay", () -> searches(relay) >= 2);
                receiver.restart();
                awaitRecoveryIntervals(relay, "both chunks delivered", () -> relay.archivedChunks().size() == 2
                        && relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));
                assertEachArchivedChunkReceivedOnce(relay.archive(), relay.archivedChunks(), receiver);
                double settled = searches(relay);
                recoveryIntervals(relay, 10);
                assertEquals(settled, searches(relay), "no more searches once everything is delivered");
            }
        }
    }

    private static SdkRequest request(String name) {
        return Fixtures.sdkRequests().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    /** Moves the relay's clock by {@code intervals} recovery intervals, one at a time, each with its pass. */
    private static void recoveryIntervals(RunningRelay relay, int intervals) {
        for (int i = 0; i < intervals; i++) {
            relay.clock().advance(RECOVERY_INTERVAL);
            relay.bean(RecoveryPass.class).runDue();
        }
    }

    /** Moves the relay's clock a recovery interval, with its pass, at each look until {@code condition} holds. */
    private static void awaitRecoveryIntervals(RunningRelay relay, String what, BooleanSupplier condition)
            throws InterruptedException {
        Await.until(what, WAIT, () -> {
            recoveryIntervals(relay, 1);
            return condition.getAsBoolean();
        });
    }

    private static double searches(RunningRelay relay) {
        return PrometheusScrape.of(relay.uri()).value("relay_recovery_delivery_searches_total");
    }

    /** Forwarding on, and a recovery pass that runs often and takes chunks undelivered for half a second. */
    private static Map<String, Object> recovering(OtlpReceiver receiver) {
        return Map.of("relay.otlp.endpoint", receiver.endpoint(),
                "relay.recovery.interval", RECOVERY_INTERVAL.toMillis() + "ms",
                "relay.recovery.grace", "500ms",
                "relay.recovery.lease", "30s",
                // the recorded fixtures' first samples lie in the past
                "relay.recovery.days", "100000");
    }

    private static double recovered(RunningRelay relay) {
        return PrometheusScrape.of(relay.uri())
                .valueOrZeroBeforeFirstUse("relay_recovery_chunks_total", "outcome", "delivered");
    }

    private static String[] systemProperties(Map<String, Object> config) {
        return config.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    /** A recorded Node chunk under another chunk id (same length, so the item header stays right). */
    private static byte[] nodeEnvelope(String chunkId) {
        RecordedChunk node = Fixtures.sdkChunks().stream()
                .filter(c -> c.itemHeader().path("platform").asText().equals("node")).findFirst().orElseThrow();
        String payload = new String(node.payload(), StandardCharsets.UTF_8);
        Matcher m = CHUNK_ID.matcher(payload);
        assertTrue(m.find());
        byte[] renamed = (payload.substring(0, m.start(1)) + chunkId + payload.substring(m.end(1)))
                .getBytes(StandardCharsets.UTF_8);
        return Envelopes.withItem(Envelopes.header(), node.itemHeader().toString(), renamed);
    }

    private static void assertEachArchivedChunkReceivedOnce(ChunkArchive archive, List<ArchivedChunk> chunks,
                                                            OtlpReceiver receiver) {
        List<String> archived = chunks.stream().map(c -> HexFormat.of().formatHex(archive.readOtlp(c))).sorted()
                .toList();
        List<String> received = receiver.received().stream().map(OtlpReceiver.Received::hex).sorted().toList();
        Map<String, Long> repeats = received.stream().collect(Collectors.groupingBy(Function.identity(),
                Collectors.counting()));
        assertTrue(repeats.values().stream().allMatch(n -> n == 1), "some chunk arrived twice");
        assertEquals(archived, received, "each archived OTLP object arrives once, byte for byte");
    }
}
