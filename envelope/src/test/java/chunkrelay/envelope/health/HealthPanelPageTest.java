package chunkrelay.envelope.health;

import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.views.HeadlessChromium;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page's ingest-health panel in a real headless browser after the recorded SDK captures and the invalid chunks of
 * {@link HealthSends}: one line of words per SDK and a table whose numbers equal the test's own count of what it sent
 * ({@link SentChunks}), reason by reason, with the linked samples its walk of the archived OTLP forms counts; a trace
 * with no sample says why it may have none and links to the panel.
 * The fields of silent sessions, transactions and linked samples are drawn by the page's own functions from a row
 * that has them. The panel's picture is saved as {@code envelope/target/health-panel.png}.
 */
@Tag("external")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HealthPanelPageTest {
    private static final List<String> COLUMNS = List.of("SDK", "version", "platform", "chunks", "rejected", "samples",
            "dropped", "sessions");
    private static final Map<String, String> LATER_COLUMNS = Map.of("silentSessions", "silent sessions",
            "transactions", "transactions", "transactionsSilent", "transactions without profile",
            "transactionsUncovered", "transactions outside chunks", "linkedSamples", "linked samples", "linkableSamples", "linkable samples");

    private EmbeddedS3Server s3;
    private RunningRelay relay;
    private HeadlessChromium browser;
    private final SentChunks sent = new SentChunks();
    private URI page;

    @BeforeAll
    void sendTheCapturesAndTheInvalidChunks() throws Exception {
        s3 = EmbeddedS3Server.inMemory();
        relay = RunningRelay.start(s3, Map.of());
        browser = HeadlessChromium.start(1400, 1000);
        Instant start = Instant.now();
        HealthSends.send(HealthSends.all(sent), i -> relay.client());
        page = URI.create("http://localhost:" + relay.uri().getPort() + "/?project=1&from="
                + Instant.ofEpochSecond(start.getEpochSecond() - 60) + "&to="
                + Instant.ofEpochSecond(Instant.now().getEpochSecond() + 60));
    }

    @AfterAll
    void stop() throws Exception {
        browser.close();
        relay.close();
        s3.close();
    }

    @Test
    void panelSaysEachSdksChunksRejectionsAndDropsAsTheTestCountedThem() throws Exception {
        show(page);
        Map<String, SentChunks.Row> expected = sent.rows();
        assertEquals(expected.size(), browser.evaluate("window.chunkRelayView.health.sdks").asInt());

        List<String> columns = new ArrayList<>(COLUMNS);
        JsonNode answer = relay.client().get("/api/v1/projects/1/health?" + page.getQuery().substring(
                "project=1&".length())).body();
        LATER_COLUMNS.forEach((field, title) -> {
            if (answer.path("sdks").findValue(field) != null) {
                columns.add(title);
            }
        });
        List<String> shown = new ArrayList<>();
        browser.evaluate("window.chunkRelayView.health.columns").forEach(c -> shown.add(c.asText()));
        assertEquals(columns.stream().sorted().toList(), shown.stream().sorted().toList(),
                "the table has the answer's columns, no more");

        List<List<String>> rows = new ArrayList<>();
        browser.evaluate("Array.from(document.querySelectorAll('#healthRows tr'))"
                + ".map(tr => Array.from(tr.cells).slice(0, 8).map(td => td.textContent))").forEach(tr -> {
                    List<String> cells = new ArrayList<>();
                    tr.forEach(td -> cells.add(td.asText()));
                    rows.add(cells);
                });
        List<List<String>> expectedRows = new ArrayList<>();
        expected.forEach((key, row) -> {
            List<String> cells = new ArrayList<>(List.of(key.split(" ", 3)));
            cells.addAll(List.of(String.valueOf(row.chunks()), String.valueOf(total(row.rejected())),
                    String.valueOf(row.samples()), String.valueOf(total(row.samplesDropped())),
                    String.valueOf(row.sessions())));
            expectedRows.add(cells);
        });
        Comparator<List<String>> bySdk = Comparator.comparing(r -> String.join(" ", r.subList(0, 3)));
        assertEquals(expectedRows.stream().sorted(bySdk).toList(), rows.stream().sorted(bySdk).toList());

        List<String> lines = new ArrayList<>();
        browser.evaluate("window.chunkRelayView.health.sentences").forEach(l -> lines.add(l.asText()));
        assertEquals(expected.size(), lines.size(), "a line for each SDK, since each sent something: " + lines);
        Map<String, SentChunks.Links> links = sent.links(relay);
        assertFalse(links.isEmpty(), "the captures link samples");
        expected.forEach((key, row) -> {
            String[] sdk = key.split(" ", 3);
            String line = lines.stream().filter(l -> l.startsWith(sdk[0] + " " + sdk[1] + " (" + sdk[2] + "): "))
                    .findFirst().orElseThrow(() -> new AssertionError("no line for " + key + " in " + lines));
            if (row.chunks() > 0) {
                assertTrue(line.contains(row.chunks() + (row.chunks() == 1 ? " chunk" : " chunks") + " accepted from "
                        + row.sessions() + " profiler session" + (row.sessions() == 1 ? "" : "s") + ", "
                        + row.samples() + " sample" + (row.samples() == 1 ? "" : "s")), line);
            } else {
                assertFalse(line.contains("accepted"), "nothing accepted is not said: " + line);
            }
            long rejected = total(row.rejected());
            if (rejected > 0) {
                assertTrue(line.contains(rejected + (rejected == 1 ? " chunk" : " chunks") + " rejected: "
                        + byCount(row.rejected())), line);
            } else {
                assertFalse(line.contains("rejected"), line);
            }
            long dropped = total(row.samplesDropped());
            if (dropped > 0) {
                assertTrue(line.contains(dropped + (dropped == 1 ? " sample" : " samples")
                        + " dropped by normalisation: " + byCount(row.samplesDropped())), line);
            } else {
                assertFalse(line.contains("dropped"), line);
            }
            if (row.silentSessions() > 0) {
                assertTrue(line.contains(row.silentSessions() + " of " + (row.sessions() + row.silentSessions())
                        + " profiler sessions named by transactions sent no chunk"), line);
                assertTrue(line.contains(row.transactionsSilent() + " of " + row.transactions()
                        + (row.transactionsSilent() == 1 ? " transaction has" : " transactions have")
                        + " no profile"), line);
            } else {
                assertFalse(line.contains("sent no chunk") || line.contains("no profile"), line);
                if (row.transactions() > 0) {
                    assertTrue(line.contains(row.transactions() + (row.transactions() == 1 ? " transaction"
                            : " transactions") + " named profiler sessions that sent chunks"), line);
                }
            }
            SentChunks.Links linked = links.get(key);
            if (linked != null) {
                assertTrue(line.contains(linked.linkedSamples() + " of " + linked.linkableSamples()
                        + " linkable samples linked to spans"), line);
            } else {
                assertFalse(line.contains("linkable"), line);
            }
        });
        assertTrue(lines.stream().anyMatch(l -> l.contains("rejected: ")) && lines.stream().anyMatch(l ->
                l.contains("dropped by normalisation")) && lines.stream().anyMatch(l -> l.contains("sent no chunk")),
                "the sends cover rejections, drops and silent sessions: " + lines);

        HealthPanel.savePicture(browser, "health-panel.png");
    }

    @Test
    void aTraceWithNoSampleSaysWhyItMayHaveNoneAndLinksToThePanel() throws Exception {
        show(URI.create(page + "&trace=0123456789abcdef0123456789abcdef"));
        assertEquals(0, browser.evaluate("window.chunkRelayView.flameSamples").asInt());
        assertTrue(browser.evaluate("window.chunkRelayView.noProfile").asBoolean());
        assertFalse(browser.evaluate("document.getElementById('noProfile').hidden").asBoolean());
        String words = browser.evaluate("document.getElementById('noProfile').innerText").asText();
        assertTrue(words.contains("sent no chunk") && words.contains("rejected") && words.contains("not linked yet"),
                words);
        assertEquals("health", browser.evaluate("document.querySelector('#noProfile a').hash.substring(1)").asText());
        assertTrue(browser.evaluate("document.getElementById('health') !== null").asBoolean());

        show(page);
        assertTrue(browser.evaluate("document.getElementById('noProfile').hidden").asBoolean(),
                "without a trace or span filter an empty graph is only an empty range");
        assertEquals(List.of(), browser.errors(), "the page logged errors");
    }

    @Test
    void silentSessionsTransactionsAndLinkedSamplesAreSaidAndTabledWhenTheAnswerHasThem() throws Exception {
        show(page);
        String row = "{sdk: 'sentry.python', version: '2.75.0', platform: 'python', chunks: 120, rejected: {},"
                + " samples: 9000, samplesDropped: {}, sessions: 20, sessionsCapped: false, transactions: 735,"
                + " silentSessions: 30, transactionsSilent: 449, transactionsUncovered: 12, linkedSamples: 5100,"
                + " linkableSamples: 5100}";
        List<String> said = new ArrayList<>();
        browser.evaluate("window.chunkRelayHealth.sentences(" + row + ")").forEach(s -> said.add(s.asText()));
        assertEquals(List.of("120 chunks accepted from 20 profiler sessions, 9000 samples",
                "30 of 50 profiler sessions named by transactions sent no chunk",
                "449 of 735 transactions have no profile",
                "12 transactions ran when no chunk of their session did",
                "5100 of 5100 linkable samples linked to spans"), said);

        List<String> none = new ArrayList<>();
        browser.evaluate("window.chunkRelayHealth.sentences({sdk: 'sentry.python', version: '2.75.0', platform:"
                + " 'python', chunks: 3, rejected: {}, samples: 300, samplesDropped: {}, sessions: 1,"
                + " sessionsCapped: true, transactions: 10, silentSessions: 0, transactionsSilent: 0,"
                + " linkedSamples: 0, linkableSamples: 0})").forEach(s -> none.add(s.asText()));
        assertEquals(List.of("3 chunks accepted from at least 1 profiler session, 300 samples",
                "10 transactions named profiler sessions that sent chunks"), none,
                "no sentence for what is zero, and transactions whose sessions all sent chunks said so");

        browser.evaluate("window.chunkRelayHealth.draw([" + row + "])");
        List<String> columns = new ArrayList<>();
        browser.evaluate("window.chunkRelayView.health.columns").forEach(c -> columns.add(c.asText()));
        List<String> expected = new ArrayList<>(COLUMNS);
        expected.addAll(List.of("silent sessions", "transactions", "transactions without profile",
                "transactions outside chunks", "linked samples", "linkable samples"));
        assertEquals(expected, columns);
        assertEquals(List.of("30", "735", "449", "12", "5100", "5100"), texts(browser.evaluate(
                "Array.from(document.querySelectorAll('#healthRows td')).slice(8).map(td => td.textContent)")));
        assertEquals(List.of(), browser.errors(), "the page logged errors");
    }

    private void show(URI address) throws Exception {
        HealthPanel.show(browser, address);
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(t -> texts.add(t.asText()));
        return texts;
    }

    private static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** "10 profiling_invalid_json, 2 profiling_malformed_samples": the largest count first, then by name. */
    private static String byCount(Map<String, Long> counts) {
        return String.join(", ", counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(e -> e.getValue() + " " + e.getKey()).toList());
    }
}
