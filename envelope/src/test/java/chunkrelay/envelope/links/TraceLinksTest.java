package chunkrelay.envelope.links;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.chunk.testing.Await;
import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.recovery.UnderivedSearch;
import chunkrelay.envelope.testing.ForkedRelay;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.OtlpInvariants;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_1;
import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_2;
import static chunkrelay.envelope.links.JavaCapture.JAVA_LINKED;
import static chunkrelay.envelope.links.JavaCapture.JAVA_TRANSACTION;
import static chunkrelay.envelope.links.JavaCapture.chunkId;
import static chunkrelay.envelope.links.JavaCapture.derived;
import static chunkrelay.envelope.links.JavaCapture.linkedByChunk;
import static chunkrelay.envelope.links.JavaCapture.linkedBySpan;
import static chunkrelay.envelope.links.JavaCapture.profileAttribute;
import static chunkrelay.envelope.links.JavaCapture.send;
import static chunkrelay.envelope.links.JavaCapture.spansOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 14 through the running relay: the recorded SDK envelopes replayed in every order link the samples of the
 * chunks to the spans of the same SDK, derivations survive a SIGKILL (one forked relay per crash path), and a replica
 * that never saw the transaction links through the span log. What happens when on the relay's clock (the window,
 * the grace, heartbeats) is pinned on a test clock in {@link LinkWindowTimingTest}.
 */
@Tag("external")
class TraceLinksTest {
    private static final Duration WAIT = Duration.ofSeconds(40);

    private static Map<String, Object> window(String window) {
        return Map.of("relay.links.window", window, "relay.links.span-log", "true");
    }

    /** Sends the Java capture in {@code order}, lets the window pass, and returns the linked counts per chunk. */
    private static Map<String, Map<String, Integer>> javaLinksSentInOrder(List<String> order) throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, window("3s"))) {
            order.forEach(request -> send(relay.client(), request));
            Await.until("both chunks derived", WAIT, () -> relay.archivedChunks().size() == 2);
            Map<String, ExportProfilesServiceRequest> otlp = derived(relay.archive(), relay.archivedChunks(),
                    JAVA_CHUNK_1, JAVA_CHUNK_2);
            List<SpanRecord> spans = spansOf(JAVA_TRANSACTION);
            Map<String, Map<String, Integer>> links = new TreeMap<>();
            otlp.forEach((request, form) -> {
                OtlpInvariants.assertValid(form);
                assertEquals(List.of(), OtlpInvariants.checkLinkedTimestamps(form, spans));
                Map<String, Integer> bySpan = linkedBySpan(form, 1);
                links.put(request, bySpan);
                assertEquals(JAVA_LINKED.get(request), bySpan.values().stream().mapToInt(Integer::intValue).sum(),
                        request);
                assertEquals((long) JAVA_LINKED.get(request), profileAttribute(form, "sentry.profile.samples_linked"));
            });
            PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
            assertEquals(965 + 469, scrape.value("relay_samples_linked_total"));
            assertEquals(2, scrape.value("relay_chunks_derived_total", "when", "window"));
            assertEquals(3, scrape.value("relay_spans_indexed_total"));
            assertEquals(0, scrape.value("relay_derivations_pending"));
            assertTrue(scrape.value("relay_span_log_writes_total", "outcome", "stored") >= 1);
            return links;
        }
    }

    @Test
    void javaCaptureLinksMainThreadSamplesOfBothChunksToTheInnermostSpanWhateverTheOrder() throws Exception {
        Map<String, Map<String, Integer>> inOrder = javaLinksSentInOrder(
                List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2));
        // the transaction's root, phase-1 and phase-2 all hold samples of the first chunk
        assertEquals(3, inOrder.get(JAVA_CHUNK_1).size(), "innermost spans: " + inOrder);
        assertEquals(inOrder, javaLinksSentInOrder(List.of(JAVA_TRANSACTION, JAVA_CHUNK_1, JAVA_CHUNK_2)));
        assertEquals(inOrder, javaLinksSentInOrder(List.of(JAVA_CHUNK_1, JAVA_CHUNK_2, JAVA_TRANSACTION)));
    }

    @Test
    void nodeCaptureWithSpansBeforeTheChunkLinksItsOnlyThreadAtOnce() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            for (String request : List.of("node-11.1.0/001", "node-11.1.0/002", "node-11.1.0/003")) {
                send(relay.client(), request);
            }
            // window 0: derived before the answer, from what this relay knows
            Map<String, ExportProfilesServiceRequest> otlp = derived(relay.archive(), relay.archivedChunks(),
                    "node-11.1.0/003");
            Map<String, Integer> bySpan = linkedBySpan(otlp.get("node-11.1.0/003"), 0);
            assertEquals(Map.of("99834c68c4c58ec7", 425, "89bc23525521a8b4", 528, "b23a96e17925a443", 1), bySpan);
        }
    }

    @Test
    void chunksInsideTheirWindowAtASigkillAreDerivedOnceWithLinksAfterARestart(@TempDir Path work) throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            String[] storage = storage(s3);
            try (ForkedRelay relay = ForkedRelay.start(256, work, with(storage, "relay.links.window=10m",
                    "relay.links.span-log=true"))) {
                RelayClient client = new RelayClient(relay.base());
                for (String request : List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2)) {
                    send(client, request);
                }
            }
            // close() is SIGKILL: both chunks were answered 200 and are archived in their Sentry form only
            try (ChunkArchive archive = new ChunkArchive(settings(s3), Clock.systemUTC())) {
                int underived = 0;
                for (LocalDate day : archive.listDays("1")) {
                    assertEquals(List.of(), archive.list("1", day, day));
                    underived += archive.listUnderived("1", day).size();
                }
                assertEquals(2, underived);
            }
            try (OtlpReceiver receiver = OtlpReceiver.start();
                 ForkedRelay restarted = ForkedRelay.start(256, Files.createDirectories(work.resolve("second")),
                         with(storage,
                         "relay.links.window=1s", "relay.links.span-log=true", "relay.links.recovery-interval=2s",
                         "relay.otlp.endpoint=" + receiver.endpoint()))) {
                Await.until("the recovery pass forwards both chunks", WAIT,
                        () -> receiver.received().size() >= 2);
                assertEquals(Map.of(chunkId(JAVA_CHUNK_1), 965, chunkId(JAVA_CHUNK_2), 469), linkedByChunk(receiver),
                        "linked through the span log the killed relay wrote");
            }
        }
    }

    @Test
    void aRunningPeerDerivesWhatAKilledRelayLeftInsideTheWindowWithItsLinks(@TempDir Path work)
            throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            String[] storage = storage(s3);
            try (ForkedRelay peer = ForkedRelay.start(256, Files.createDirectories(work.resolve("peer")), with(storage,
                    "relay.links.window=1s", "relay.links.span-log=true", "relay.links.recovery-interval=1s",
                    "relay.otlp.endpoint=" + receiver.endpoint()))) {
                Await.until("the peer's search at start", WAIT, () -> PrometheusScrape.of(peer.base())
                        .valueOrZeroBeforeFirstUse("relay_recovery_searches_total") >= 1);
                try (ForkedRelay doomed = ForkedRelay.start(256, Files.createDirectories(work.resolve("doomed")),
                        with(storage, "relay.links.window=10m", "relay.links.span-log=true",
                                "relay.links.recovery-interval=1s"))) {
                    RelayClient client = new RelayClient(doomed.base());
                    for (String request : List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2)) {
                        send(client, request);
                    }
                }
                // close() is SIGKILL: the chunks are in their Sentry form only, and the heartbeat goes stale (when a
                // beating relay is left alone and each chunk is sent once: LinkWindowTimingTest, on a test clock)
                Await.until("the peer derives and forwards both chunks", WAIT,
                        () -> receiver.received().size() >= 2);
                assertEquals(Map.of(chunkId(JAVA_CHUNK_1), 965, chunkId(JAVA_CHUNK_2), 469), linkedByChunk(receiver),
                        "linked through the span log the dead relay wrote");
            }
        }
    }

    @Test
    void replayDerivesChunksLeftUnderivedAndSendsThemWithTheirLinks(@TempDir Path work) throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            String[] storage = storage(s3);
            try (ForkedRelay relay = ForkedRelay.start(256, work, with(storage, "relay.links.window=10m",
                    "relay.links.span-log=true"))) {
                RelayClient client = new RelayClient(relay.base());
                for (String request : List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2)) {
                    send(client, request);
                }
            }
            List<LocalDate> days;
            try (ChunkArchive archive = new ChunkArchive(settings(s3), Clock.systemUTC())) {
                days = archive.listDays("1");
            }
            // replay takes chunks whose window and grace have passed: it runs with no window, on a clock set past
            // the grace (LinkWindowTimingTest checks the grace itself)
            List<String> options = new ArrayList<>(List.of("-Xmx256m"));
            String ahead = UnderivedSearch.RECOVERY_GRACE.plusSeconds(5).toSeconds() + "s";
            for (String property : with(storage, "relay.links.window=0s", "relay.otlp.endpoint=" + receiver.endpoint(),
                    "test.clock=manual", "test.clock-ahead=" + ahead)) {
                options.add("-D" + property);
            }
            List<String> command = ChildJvm.command(options, chunkrelay.envelope.Application.class, "replay",
                    "--project", "1", "--from", days.get(0).toString(), "--to", days.get(days.size() - 1).toString());
            Process replay = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(replay.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, replay.waitFor(), out);
            assertTrue(out.contains("delivered 2, refused 0, failed 0"), out);
            assertEquals(Map.of(chunkId(JAVA_CHUNK_1), 965, chunkId(JAVA_CHUNK_2), 469), linkedByChunk(receiver));
        }
    }

    @Test
    void aStoppingRelayDerivesTheChunksStillInsideTheirWindowWithTheSpansItKnows() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            try (RunningRelay relay = RunningRelay.start(s3, window("10m"))) {
                send(relay.client(), JAVA_TRANSACTION);
                send(relay.client(), JAVA_CHUNK_2);
                assertEquals(List.of(), relay.archivedChunks(), "inside its window: not derived yet");
            }
            try (ChunkArchive archive = new ChunkArchive(settings(s3), Clock.systemUTC())) {
                List<ArchivedChunk> derived = new ArrayList<>();
                for (LocalDate day : archive.listDays("1")) {
                    derived.addAll(archive.list("1", day, day));
                }
                assertEquals(1, derived.size(), "derived when the relay stopped");
                ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(
                        archive.readOtlp(derived.get(0)));
                assertEquals(469, linkedBySpan(otlp, 1).values().stream().mapToInt(Integer::intValue).sum());
            }
        }
    }

    @Test
    void replicaThatNeverSawTheTransactionLinksThroughTheSpanLog() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay first = RunningRelay.start(s3, window("3s"));
             RunningRelay second = RunningRelay.start(s3, window("3s"))) {
            send(first.client(), JAVA_CHUNK_1);
            send(second.client(), JAVA_TRANSACTION);
            Await.until("the chunk derived", WAIT, () -> first.archivedChunks().size() == 1);
            ExportProfilesServiceRequest otlp = derived(first.archive(), first.archivedChunks(), JAVA_CHUNK_1)
                    .get(JAVA_CHUNK_1);
            assertEquals(965, linkedBySpan(otlp, 1).values().stream().mapToInt(Integer::intValue).sum());
        }
    }

    private static String[] storage(EmbeddedS3Server s3) {
        return RunningRelay.storageProperties(s3).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    private static String[] with(String[] base, String... more) {
        List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static ArchiveSettings settings(EmbeddedS3Server s3) {
        return s3.applyTo(ArchiveSettings.defaults()).withBucket(RunningRelay.BUCKET);
    }
}
