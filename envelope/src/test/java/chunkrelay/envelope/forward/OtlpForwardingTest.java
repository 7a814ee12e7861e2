package chunkrelay.envelope.forward;

import chunkrelay.chunk.testing.Await;
import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;
import chunkrelay.envelope.cli.ReplayCli;
import chunkrelay.envelope.recovery.ReplayCommand;
import chunkrelay.envelope.recovery.ReplaySummary;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.OtlpInvariants;
import chunkrelay.translate.export.ExportCounters;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 6 end to end: the relay on a random port archives into a real S3 server (S3Proxy) and forwards to a
 * real OTLP/HTTP receiver; replay re-sends what the receiver missed. Retry and Retry-After timing are pinned by
 * the translate module's exporter tests.
 */
@Tag("external")
class OtlpForwardingTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String PROJECT = "1";

    @Test
    void forwardsEveryArchivedChunkOnceByteEqualToItsArchivedOtlpForm() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.otlp.endpoint", receiver.endpoint()))) {
            postAll(relay, Fixtures.sdkRequests());
            int chunks = Fixtures.sdkChunks().size();
            Await.until("a delivery marker for every chunk", WAIT, () -> relay.archivedChunks().size() == chunks
                    && relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

            List<String> archived = relay.archivedChunks().stream()
                    .map(chunk -> HexFormat.of().formatHex(relay.archive().readOtlp(chunk))).sorted().toList();
            List<String> received = receiver.received().stream().map(OtlpReceiver.Received::hex).sorted().toList();
            assertEquals(archived, received, "each archived OTLP object arrives once, byte for byte");
            assertTrue(receiver.received().stream().allMatch(r -> "gzip".equals(r.contentEncoding())));
            receiver.received().forEach(r -> OtlpInvariants.assertValid(r.request()));
            ExportCounters counters = relay.bean(ExportCounters.class);
            assertEquals(chunks, counters.attempts());
            assertEquals(chunks, counters.deliveries());
            assertEquals(0, counters.finalFailures());
        }
    }

    @Test
    void replayDeliversEveryChunkMissedWhileTheTargetWasDownExactlyOnce() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start();
             RunningRelay relay = RunningRelay.start(s3, smallRetryBudget(receiver))) {
            List<SdkRequest> java = requests(name -> name.startsWith("java-"));
            List<SdkRequest> node = requests(name -> name.startsWith("node-"));
            postAll(relay, java);
            int delivered = chunksIn(java);
            Await.until("the Java chunks delivered", WAIT, () -> relay.archivedChunks().size() == delivered
                    && relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

            receiver.stop();
            postAll(relay, node);
            int total = delivered + chunksIn(node);
            Await.until("the Node chunks marked for replay", WAIT, () -> relay.archivedChunks().size() == total
                    && relay.archivedChunks().stream().allMatch(c -> c.delivered() || c.markedForReplay()));
            assertEquals(delivered, receiver.received().size());

            receiver.restart();
            LocalDate[] days = days(relay.archivedChunks());
            ReplayCommand replay = relay.bean(ReplayCommand.class);
            ReplaySummary first = replay.replay(PROJECT, days[0], days[1]);
            assertEquals(List.of(total, delivered, total - delivered, 0), counts(first), first.describe());
            assertEachArchivedChunkReceivedOnce(relay.archive(), relay.archivedChunks(), receiver);
            assertTrue(relay.archivedChunks().stream().allMatch(ArchivedChunk::delivered));

            ReplaySummary again = replay.replay(PROJECT, days[0], days[1]);
            assertEquals(List.of(total, total, 0, 0), counts(again), again.describe());
            assertEquals(total, receiver.received().size(), "nothing is sent twice");
        }
    }

    @Test
    void replaysRunAtOnceOnTwoReplicasSendEachChunkOnce() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            Map<String, Object> config = new HashMap<>(smallRetryBudget(receiver));
            config.put("relay.recovery.enabled", "false");
            try (RunningRelay a = RunningRelay.start(s3, config);
                 RunningRelay b = RunningRelay.start(s3, config)) {
                receiver.stop();
                List<SdkRequest> all = requests(name -> true);
                postAll(a, all);
                int total = chunksIn(all);
                Await.until("every chunk marked for replay", WAIT, () -> a.archivedChunks().size() == total
                        && a.archivedChunks().stream().allMatch(ArchivedChunk::markedForReplay));
                receiver.restart();
                LocalDate[] days = days(a.archivedChunks());
                ExecutorService replays = Executors.newFixedThreadPool(2);
                try {
                    Future<ReplaySummary> first = replays.submit(() ->
                            a.bean(ReplayCommand.class).replay(PROJECT, days[0], days[1]));
                    Future<ReplaySummary> second = replays.submit(() ->
                            b.bean(ReplayCommand.class).replay(PROJECT, days[0], days[1]));
                    int delivered = first.get().delivered() + second.get().delivered();
                    assertEquals(total, delivered, "each chunk delivered by exactly one of them: "
                            + first.get().describe() + " / " + second.get().describe());
                } finally {
                    replays.shutdownNow();
                }
                assertEachArchivedChunkReceivedOnce(a.archive(), a.archivedChunks(), receiver);
                assertTrue(a.archivedChunks().stream().allMatch(ArchivedChunk::delivered));
            }
        }
    }

    @Test
    void replayCommandLineDeliversWhatTheRelayCouldNotAndExitsZero() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            receiver.stop();
            List<SdkRequest> node = requests(name -> name.startsWith("node-11.1.0/"));
            int chunks = chunksIn(node);
            LocalDate[] days;
            try (RunningRelay relay = RunningRelay.start(s3, smallRetryBudget(receiver))) {
                postAll(relay, node);
                Await.until("the chunks marked for replay", WAIT, () -> relay.archivedChunks().size() == chunks
                        && relay.archivedChunks().stream().allMatch(ArchivedChunk::markedForReplay));
                days = days(relay.archivedChunks());
            }
            receiver.restart();

            Map<String, Object> config = new HashMap<>(RunningRelay.storageProperties(s3));
            config.put("relay.otlp.endpoint", receiver.endpoint());
            config.put("relay.otlp.max-age", "1h");
            Process replay = replayProcess(config, "replay", "--project", PROJECT, "--from", days[0].toString(),
                    "--to", days[1].toString());
            assertTrue(replay.waitFor(120, TimeUnit.SECONDS), "replay process finished");
            String out = new String(replay.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, replay.exitValue(), out);
            assertTrue(out.contains("found " + chunks + ", skipped (already delivered) 0, skipped (refused before) 0,"
                    + " delivered " + chunks + ", refused 0, failed 0"), out);
            // the recorded chunks are of 2026-11-22: the warning comes before anything is sent
            int warning = out.indexOf("replay: warning: " + chunks + " of the " + chunks + " chunks to send hold"
                    + " profiles older than relay.otlp.max-age (PT1H)");
            assertTrue(warning >= 0 && warning < out.indexOf("found " + chunks), out);
            assertEquals(chunks, receiver.received().size());
        }
    }

    @Test
    void replayCommandLineRefusesBadArgumentsAndMissingEndpointWithUsageExit() {
        assertEquals(ReplayCli.USAGE, replayInProcess(List.of("--project", "1", "--from", "2026-11-01")),
                "--to missing");
        assertEquals(ReplayCli.USAGE, replayInProcess(List.of("--project", "x", "--from", "2026-11-01", "--to",
                "2026-11-02")));
        assertEquals(ReplayCli.USAGE, replayInProcess(List.of("--project", "1", "--from", "2026-11-03", "--to",
                "2026-11-02")));
        assertEquals(ReplayCli.USAGE, replayInProcess(List.of("--project", "1", "--from", "2026-11-01", "--to",
                "2026-11-02", "--force")));
    }

    @Test
    void slowTargetDoesNotSlowIngestAndNothingIsLeftUnmarked() throws Exception {
        Duration receiverDelay = Duration.ofSeconds(3);
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start().delaying(receiverDelay)) {
            Map<String, Object> config = new HashMap<>();
            config.put("relay.otlp.endpoint", receiver.endpoint());
            config.put("relay.otlp.workers", "1");
            config.put("relay.otlp.queue-capacity", "1");
            config.put("relay.otlp.drain-timeout", "1s");
            long slowestMillis = 0;
            List<Long> latencies = new ArrayList<>();
            try (RunningRelay relay = RunningRelay.start(s3, config)) {
                relay.client().replay(Fixtures.sdkRequest("java-8.43.0/002"));  // warm up, holds no chunk
                for (SdkRequest request : Fixtures.sdkRequests()) {
                    long start = System.nanoTime();
                    assertEquals(200, relay.client().replay(request).status(), request.name());
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    latencies.add(millis);
                    slowestMillis = Math.max(slowestMillis, millis);
                }
                System.out.println("[forwarding] ingest latencies with a target answering after "
                        + receiverDelay.toMillis() + " ms: " + latencies + " ms");
                assertTrue(relay.bean(ExportCounters.class).queueRejections() > 0, "the queue overflowed");
                assertTrue(relay.archivedChunks().stream().anyMatch(ArchivedChunk::markedForReplay));
            }
            assertTrue(slowestMillis < receiverDelay.toMillis() / 2, "slowest post took " + slowestMillis + " ms");

            // closed with chunks still queued and one in flight: each chunk is delivered or marked for replay
            try (ChunkArchive archive = new ChunkArchive(s3.applyTo(ArchiveSettings.defaults()
                    .withBucket(RunningRelay.BUCKET)), Clock.systemUTC())) {
                List<ArchivedChunk> chunks = RunningRelay.archivedChunks(archive, RunningRelay.objects(s3));
                assertEquals(Fixtures.sdkChunks().size(), chunks.size());
                List<String> unmarked = chunks.stream().filter(c -> !c.delivered() && !c.markedForReplay())
                        .map(c -> c.key().stem()).toList();
                assertEquals(List.of(), unmarked);
            }
        }
    }

    private static Map<String, Object> smallRetryBudget(OtlpReceiver receiver) {
        return Map.of("relay.otlp.endpoint", receiver.endpoint(),
                "relay.otlp.max-attempts", "2",
                "relay.otlp.initial-backoff", "10ms",
                "relay.otlp.max-backoff", "20ms",
                "relay.otlp.max-elapsed", "500ms",
                "relay.otlp.connect-timeout", "1s");
    }

    private static void postAll(RunningRelay relay, List<SdkRequest> requests) {
        for (SdkRequest request : requests) {
            RelayClient.Answer answer = relay.client().replay(request);
            assertEquals(200, answer.status(), request.name() + ": " + answer.raw());
        }
    }

    private static List<SdkRequest> requests(java.util.function.Predicate<String> name) {
        return Fixtures.sdkRequests().stream().filter(r -> name.test(r.name())).toList();
    }

    private static int chunksIn(List<SdkRequest> requests) {
        List<String> names = requests.stream().map(SdkRequest::name).toList();
        return (int) Fixtures.sdkChunks().stream().filter(c -> names.contains(c.request())).count();
    }

    private static LocalDate[] days(List<ArchivedChunk> chunks) {
        List<LocalDate> days = chunks.stream().map(c -> c.key().day()).sorted().toList();
        return new LocalDate[] {days.get(0), days.get(days.size() - 1)};
    }

    private static List<Integer> counts(ReplaySummary summary) {
        return List.of(summary.found(), summary.skippedDelivered(), summary.delivered(), summary.failed());
    }

    private static void assertEachArchivedChunkReceivedOnce(ChunkArchive archive, List<ArchivedChunk> chunks,
                                                            OtlpReceiver receiver) {
        Map<String, Long> received = receiver.received().stream()
                .collect(Collectors.groupingBy(OtlpReceiver.Received::hex, Collectors.counting()));
        Map<String, Long> expected = chunks.stream()
                .collect(Collectors.toMap(c -> HexFormat.of().formatHex(archive.readOtlp(c)), c -> 1L));
        assertEquals(expected, received);
    }

    private static int replayInProcess(List<String> args) {
        return ReplayCli.run(args, System.out, System.err);
    }

    /** {@code Application.main} in a JVM of its own, configured through system properties. */
    private static Process replayProcess(Map<String, Object> config, String... args) throws IOException {
        List<String> options = new ArrayList<>(List.of("-Xmx256m"));
        config.forEach((key, value) -> options.add("-D" + key + "=" + value));
        return new ProcessBuilder(ChildJvm.command(options, Application.class, args)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE)
                .start();
    }
}
