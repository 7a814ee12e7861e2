package chunkrelay.envelope.health;

import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code export --format health}, a child JVM reading the bucket a stopped relay shared its counts to: each SDK's
 * row equals the test's own count of what it sent ({@link SentChunks}), and the file is the API's JSON answer.
 */
@Tag("external")
class HealthExportTest {

    @Test
    void exportWritesEachSdksHealthAsTheTestCountedIt(@TempDir Path work) throws Exception {
        SentChunks sent = new SentChunks();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            Instant start = Instant.now();
            JsonNode api;
            String from = Instant.ofEpochSecond(start.getEpochSecond() - 60).toString();
            String to;
            try (RunningRelay relay = RunningRelay.start(s3, Map.of())) {
                HealthSends.send(HealthSends.all(sent), i -> relay.client());
                to = Instant.ofEpochSecond(Instant.now().getEpochSecond() + 60).toString();
                api = relay.client().get("/api/v1/projects/1/health?from=" + from + "&to=" + to).body();
            }
            Path file = work.resolve("health.json");
            List<String> options = new ArrayList<>(List.of("-Xmx256m"));
            RunningRelay.storageProperties(s3).forEach((key, value) -> options.add("-D" + key + "=" + value));
            Process export = new ProcessBuilder(ChildJvm.command(options, Application.class, "export", "--project",
                    "1", "--from", from, "--to", to, "--format", "HEALTH", "--out", file.toString()))
                    .redirectErrorStream(true).start();
            String log = new String(export.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(export.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, export.exitValue(), log);
            assertTrue(log.contains("export: wrote " + file + " ("), log);

            JsonNode written = new ObjectMapper().readTree(file.toFile());
            assertEquals(sent.rows(), SentChunks.rows(written));
            assertEquals(api, written);
        }
    }
}
