package chunkrelay.envelope.sdk;

import chunkrelay.envelope.health.HealthPanel;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.views.HeadlessChromium;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sentry-sdk 2.75.0 as issue 50 met it: worker threads running transactions, continuous profiling in the trace
 * lifecycle, sent through a recording hop to a real relay. The driver ({@code silent_sessions.py}) runs rounds that
 * each start and stop a profiler session (each sends a chunk), then a last session whose process ends before its
 * profiler sends, as a killed or recycled worker's does. The test counts itself, from the envelopes the SDK sent, the
 * profiler ids its transactions name ({@code contexts.profile.profiler_id}) and those of the chunks it sent; the
 * relay's health row of {@code sentry.python} has the ids named without a chunk as {@code silentSessions} and the
 * transactions naming them as {@code transactionsSilent}, and the page's health panel says so in Chromium (its
 * picture is saved as {@code envelope/target/health-panel-python.png}).
 */
@Tag("external")
class PythonSilentSessionsTest {
    private static final long PROJECT_ID = 42;
    private static final String PUBLIC_KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    private static final Duration BUSY_WORK = Duration.ofSeconds(20);
    private static final Duration LINK_WINDOW = Duration.ofSeconds(5);

    @Test
    void silentSessionsAndTheirTransactionsEqualTheTestsOwnCountOfWhatTheSdkSent() throws Exception {
        Path work = workRoot();
        PythonSdkRunner python = new PythonSdkRunner(work.resolve("python"), work.resolve("logs"), BUSY_WORK,
                "trace");
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of(
                     "relay.projects." + PROJECT_ID + ".keys", List.of(PUBLIC_KEY),
                     // a short window and share interval, so that the transactions are told sooner
                     "relay.links.window", LINK_WINDOW.toSeconds() + "s", "relay.health.share-interval", "1s"));
             EnvelopeRecorder hop = EnvelopeRecorder.forwardingTo(new RelayTarget(relay.uri(), PROJECT_ID,
                     PUBLIC_KEY))) {
            Instant start = Instant.now();
            SdkRunner.Run run = python.run(hop.target(), List.of("silent_sessions.py"), Map.of());
            ProfileChunkAssertions.assertEveryEnvelopeAccepted(python.sdk(), hop.envelopes());

            Map<String, Long> named = new TreeMap<>();
            Map<String, List<double[]>> times = new HashMap<>();
            for (ReceivedEnvelope envelope : hop.envelopes()) {
                for (ReceivedEnvelope.Item transaction : envelope.itemsOfType("transaction")) {
                    JsonNode payload = transaction.payloadJson();
                    JsonNode id = payload.path("contexts").path("profile").path("profiler_id");
                    if (id.isTextual()) {
                        named.merge(id.asText().replace("-", ""), 1L, Long::sum);
                        times.computeIfAbsent(id.asText().replace("-", ""), i -> new ArrayList<>()).add(new double[] {
                                seconds(payload.path("start_timestamp")), seconds(payload.path("timestamp"))});
                    }
                }
            }
            Map<String, List<double[]>> chunkSpans = new HashMap<>();
            for (JsonNode chunk : hop.profileChunks()) {
                double first = Double.MAX_VALUE;
                double last = -Double.MAX_VALUE;
                for (JsonNode sample : chunk.path("profile").path("samples")) {
                    first = Math.min(first, sample.path("timestamp").asDouble());
                    last = Math.max(last, sample.path("timestamp").asDouble());
                }
                chunkSpans.computeIfAbsent(chunk.path("profiler_id").asText().replace("-", ""),
                        i -> new ArrayList<>()).add(new double[] {first, last});
            }
            Set<String> withChunks = chunkSpans.keySet();
            // a transaction of a session that sent chunks, none of them from before its end to after its start
            long transactionsUncovered = times.entrySet().stream().filter(id -> withChunks.contains(id.getKey()))
                    .flatMap(id -> id.getValue().stream().filter(t -> chunkSpans.get(id.getKey()).stream()
                            .noneMatch(c -> c[0] <= t[1] && c[1] >= t[0]))).count();
            long transactions = named.values().stream().mapToLong(Long::longValue).sum();
            long silent = named.keySet().stream().filter(id -> !withChunks.contains(id)).count();
            long transactionsSilent = named.entrySet().stream().filter(id -> !withChunks.contains(id.getKey()))
                    .mapToLong(Map.Entry::getValue).sum();
            assertTrue(withChunks.size() >= 2 && silent >= 1 && transactionsSilent >= 1,
                    "the driver's rounds sent chunks and its last session none: named " + named + ", with chunks "
                            + withChunks);
            assertTrue(transactions >= 30, "transactions naming sessions: " + named);

            // told once the chunks that could have come had the link window and a minute past the last minute
            Instant told = Instant.now().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(2))
                    .plus(LINK_WINDOW).plusSeconds(3);
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), told).toMillis()));
            RelayClient.Answer answer = relay.client().get("/api/v1/projects/" + PROJECT_ID + "/health?from="
                    + (start.getEpochSecond() - 60) + "&to=" + (Instant.now().getEpochSecond() + 60));
            assertEquals(200, answer.status(), answer.raw());
            JsonNode row = null;
            for (JsonNode sdk : answer.body().path("sdks")) {
                if (sdk.path("sdk").asText().equals("sentry.python") && sdk.path("transactions").asLong() > 0) {
                    row = sdk;
                }
            }
            assertTrue(row != null, "a sentry.python row with transactions: " + answer.raw());
            assertEquals(transactions, row.path("transactions").asLong(), answer.raw());
            assertEquals(silent, row.path("silentSessions").asLong(), answer.raw());
            assertEquals(transactionsSilent, row.path("transactionsSilent").asLong(), answer.raw());
            assertEquals(transactionsUncovered, row.path("transactionsUncovered").asLong(), answer.raw());
            String sdk = "sentry.python " + row.path("version").asText() + " (" + row.path("platform").asText() + "): ";
            panelSays(relay, start, sdk, silent, withChunks.size(), transactionsSilent, transactions);
            System.out.println("[sdk-e2e] " + run.timings() + ": " + named.size() + " sessions named by "
                    + transactions + " transactions, " + withChunks.size() + " sent chunks (" + hop.profileChunks()
                    .size() + " chunks); " + silent + " silent, named by " + transactionsSilent + " transactions; "
                    + transactionsUncovered + " transactions outside their session's chunks");
        }
    }

    /**
     * The page's health panel in Chromium says the silent sessions and their transactions in words, with the test's
     * own counts, and its picture is saved.
     */
    private static void panelSays(RunningRelay relay, Instant start, String sdk, long silent, long sessions,
                                  long transactionsSilent, long transactions) throws Exception {
        try (HeadlessChromium browser = HeadlessChromium.start(1400, 1000)) {
            HealthPanel.show(browser, URI.create("http://localhost:" + relay.uri().getPort() + "/?project="
                    + PROJECT_ID + "&from=" + Instant.ofEpochSecond(start.getEpochSecond() - 60) + "&to="
                    + Instant.ofEpochSecond(Instant.now().getEpochSecond() + 60)));
            List<String> lines = new ArrayList<>();
            browser.evaluate("window.chunkRelayView.health.sentences").forEach(l -> lines.add(l.asText()));
            String line = lines.stream().filter(l -> l.startsWith(sdk)).findFirst()
                    .orElseThrow(() -> new AssertionError("no line for " + sdk + " in " + lines));
            assertTrue(line.contains(silent + " of " + (sessions + silent)
                    + " profiler sessions named by transactions sent no chunk"), line);
            assertTrue(line.contains(transactionsSilent + " of " + transactions
                    + (transactionsSilent == 1 ? " transaction has" : " transactions have") + " no profile"), line);
            HealthPanel.savePicture(browser, "health-panel-python.png");
        }
    }

    /** A time as the SDK wrote it: seconds since the epoch, or an RFC 3339 text (the Python SDK's). */
    private static double seconds(JsonNode time) {
        if (time.isNumber()) {
            return time.asDouble();
        }
        Instant instant = Instant.parse(time.asText());
        return instant.getEpochSecond() + instant.getNano() / 1e9;
    }

    /** {@code envelope/target/sdk-e2e}, where the other SDK tests keep their installs. */
    private static Path workRoot() {
        try {
            return Path.of(PythonSilentSessionsTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .getParent().resolve("sdk-e2e");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
