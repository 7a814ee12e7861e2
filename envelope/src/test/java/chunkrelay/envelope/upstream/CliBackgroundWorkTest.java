package chunkrelay.envelope.upstream;

import chunkrelay.envelope.cli.ExportCli;
import chunkrelay.envelope.cli.ReplayCli;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command lines run in the {@code cli} environment, in which none of the relay's background work starts: with
 * an upstream Sentry configured and an envelope waiting in its spool, {@code export} and {@code replay} start no
 * upstream sender, send nothing upstream and leave the spool to the relays. Each command is held at its report
 * line (its stdout blocks), while its application context is up, to look at the threads it started.
 */
class CliBackgroundWorkTest {
    /** Thread names of the relay's background work. */
    private static final List<String> BACKGROUND = List.of("upstream-", "recovery-pass", "chunk-derivation");

    @Test
    void exportWithAnUpstreamAndASpooledEnvelopeSendsNothingAndStartsNoUpstreamWork(@TempDir Path work)
            throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             TestUpstream upstream = new TestUpstream()) {
            String spooled = spoolAnEnvelope(s3);
            Map<String, Object> config = new HashMap<>(RunningRelay.storageProperties(s3));
            config.put("relay.upstream.url", upstream.uri().toString());

            Held export = runHeld(config, (out, err) -> ExportCli.run(List.of("--project", "1", "--format",
                    "collapsed", "--out", work.resolve("profile.collapsed.txt").toString()), out, err));

            assertEquals(0, export.code(), export.err());
            assertTrue(export.out().startsWith("export: wrote "), export.out());
            assertEquals(List.of(), export.backgroundThreads(), "background threads while the command ran");
            assertEquals(List.of(), upstream.received(), "nothing reached the upstream");
            Set<String> objects = RunningRelay.objects(s3).keySet();
            assertTrue(objects.contains(spooled), "the spooled envelope is left for a relay: " + objects);
            assertTrue(objects.stream().noneMatch(key -> key.startsWith(ArchiveLayout.UPSTREAM_SPOOL_CLAIMS)), objects
                    + " has a claim");
        }
    }

    @Test
    void replayWithAnUpstreamAndASpooledEnvelopeSendsNothingUpstreamAndStartsNoUpstreamWork() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             TestUpstream upstream = new TestUpstream();
             OtlpReceiver receiver = OtlpReceiver.start()) {
            spoolAnEnvelope(s3);
            Map<String, Object> config = new HashMap<>(RunningRelay.storageProperties(s3));
            config.put("relay.upstream.url", upstream.uri().toString());
            config.put("relay.otlp.endpoint", receiver.endpoint());

            Held replay = runHeld(config, (out, err) -> ReplayCli.run(List.of("--project", "1", "--from",
                    "2026-11-01", "--to", "2026-11-02"), out, err));

            assertEquals(0, replay.code(), replay.err());
            assertTrue(replay.out().contains(": found 0, skipped (already delivered) 0, skipped (refused before) 0, delivered 0, refused 0, failed 0"),
                    replay.out());
            assertEquals(List.of(), replay.backgroundThreads(), "background threads while the command ran");
            assertEquals(List.of(), upstream.received(), "nothing reached the upstream");
        }
    }

    /** A command's exit code and output, and the background threads that existed while it was held. */
    private record Held(int code, String out, String err, List<String> backgroundThreads) {
    }

    private interface Command {
        int run(PrintStream out, PrintStream err);
    }

    /**
     * Runs the command in this JVM with {@code config} as system properties (how the relay reads its own), holding
     * its first write to stdout until the threads are listed.
     */
    private static Held runHeld(Map<String, Object> config, Command command) throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        CompletableFuture<Void> reported = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        OutputStream holdingOut = new OutputStream() {
            @Override
            public void write(int b) throws java.io.IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                reported.complete(null);
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                outBytes.write(b, off, len);
            }
        };
        config.forEach((key, value) -> System.setProperty(key, value.toString()));
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> command.run(
                    new PrintStream(holdingOut, true, StandardCharsets.UTF_8),
                    new PrintStream(errBytes, true, StandardCharsets.UTF_8)), runner);
            CompletableFuture.anyOf(reported, code).get(120, TimeUnit.SECONDS);
            List<String> background = Thread.getAllStackTraces().keySet().stream()
                    .filter(thread -> !before.contains(thread)).map(Thread::getName)
                    .filter(name -> BACKGROUND.stream().anyMatch(name::startsWith)).sorted().toList();
            release.countDown();
            int exit = code.get(120, TimeUnit.SECONDS);
            assertTrue(reported.isDone(), "the command reported nothing: " + errBytes);
            return new Held(exit, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8),
                    background);
        } finally {
            release.countDown();
            runner.shutdownNow();
            config.keySet().forEach(System::clearProperty);
        }
    }

    /** An event envelope in the upstream spool, as a relay that could not reach the upstream leaves it. */
    private static String spoolAnEnvelope(EmbeddedS3Server s3) {
        ObjectMapper json = new ObjectMapper();
        String eventId = UUID.randomUUID().toString().replace("-", "");
        ObjectNode header = json.createObjectNode().put("event_id", eventId);
        byte[] payload = ("{\"event_id\":\"" + eventId + "\",\"message\":\"spooled\"}").getBytes(StandardCharsets.UTF_8);
        byte[] itemHeader = ("{\"type\":\"event\",\"length\":" + payload.length + "}").getBytes(StandardCharsets.UTF_8);
        Instant now = Instant.now();
        UpstreamEnvelope envelope = new UpstreamEnvelope(1, "a".repeat(32), "sentry.java/8.43.0", header,
                List.of(new ForwardedItem("event", itemHeader, payload)), now, null, null, "127.0.0.1");
        String key = ArchiveLayout.UPSTREAM_SPOOL + String.format("%020d", now.toEpochMilli()) + "-"
                + UUID.randomUUID() + ".envelope";
        try (ChunkArchive archive = new ChunkArchive(s3.applyTo(ArchiveSettings.defaults()
                .withBucket(RunningRelay.BUCKET)), Clock.systemUTC())) {
            archive.store().storeObject(key, envelope.spooled());
        }
        return key;
    }
}
