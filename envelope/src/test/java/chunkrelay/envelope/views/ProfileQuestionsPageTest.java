package chunkrelay.envelope.views;

import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 26's page in headless Chromium after the recorded SDK requests and a second release of the Java chunks (chunk
 * 003 sent twice in it): opened without a range it shows the newest chunks in whole seconds; the timeline is drawn
 * and dragging across it narrows the range; the trace panel lists the Java transaction's trace and clicking it
 * narrows the flame graph to the trace's samples; the differential flame graph names both releases, colours changed
 * functions red or blue and gives both shares under the pointer; nothing is logged as an error. Screenshots:
 * {@code envelope/target/views-questions.png} and {@code views-diff.png}.
 */
@Tag("external")
class ProfileQuestionsPageTest {
    private static final String RANGE = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";
    private static final String TRANSACTION_TRACE = "acaf88a141894171b76154725292c830";
    private static final String TYPED_TIME = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ";

    @Test
    void timelineTracePanelAndDiffAnswerTheirQuestionsInTheBrowser() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of());
             HeadlessChromium browser = HeadlessChromium.start(1400, 2200)) {
            for (SdkRequest request : RecordedDay.requests()) {
                assertEquals(200, relay.client().replay(request).status(), request.name());
            }
            ReleasedCopies.send(relay, "java-8.43.0/001", "c0000000000000000000000000000001", "fixture-java@2.0.0");
            ReleasedCopies.send(relay, "java-8.43.0/003", "c0000000000000000000000000000002", "fixture-java@2.0.0");
            ReleasedCopies.send(relay, "java-8.43.0/003", "c0000000000000000000000000000003", "fixture-java@2.0.0");
            URI base = URI.create("http://localhost:" + relay.uri().getPort());
            RelayClient views = new RelayClient(base);

            // no range in the address and nothing in the last hour: the newest chunks, in whole seconds
            browser.navigate(base.resolve("/?project=1"));
            awaitSettled(browser);
            assertEquals(RecordedDay.chunks().size() + 3, browser.evaluate(
                    "document.querySelectorAll('#chunkRows tr').length").asInt());
            assertTrue(value(browser, "from").matches(TYPED_TIME), value(browser, "from"));
            assertTrue(value(browser, "to").matches(TYPED_TIME), value(browser, "to"));

            String profiler = views.get("/api/v1/projects/1/chunks?" + RANGE + "&platform=java").body().path("chunks")
                    .get(0).path("profilerId").asText();
            browser.navigate(base.resolve("/?project=1&" + RANGE + "&profiler=" + profiler));
            awaitSettled(browser);
            assertEquals(5, browser.evaluate("document.querySelectorAll('#chunkRows tr').length").asInt(),
                    "the Java chunks of both releases");
            assertTrue(browser.evaluate("window.chunkRelayView.timeline.bars").asInt() > 0, "the timeline is drawn");

            // profile -> trace: the transaction's trace is listed; clicking it narrows the flame graph
            assertTrue(contains(browser.evaluate("window.chunkRelayView.traces"), TRANSACTION_TRACE),
                    browser.evaluate("window.chunkRelayView.traces").toString());
            long all = browser.evaluate("window.chunkRelayView.flameSamples").asLong();
            JsonNode row = browser.evaluate("(() => { const r = document.querySelector('#traceRows tr.trace[data-trace=\""
                    + TRANSACTION_TRACE + "\"]'); r.scrollIntoView(); const b = r.getBoundingClientRect();"
                    + " return {x: b.left + 20, y: b.top + b.height / 2, samples: Number(r.children[1].textContent)}; })()");
            browser.click(row.path("x").asDouble(), row.path("y").asDouble());
            browser.awaitTrue("document.getElementById('trace').value === '" + TRANSACTION_TRACE
                    + "' && window.chunkRelayView.state === 'drawn'", Duration.ofSeconds(60));
            long traced = browser.evaluate("window.chunkRelayView.flameSamples").asLong();
            assertEquals(row.path("samples").asLong(), traced, "the flame graph holds the trace's samples");
            assertTrue(traced > 0 && traced < all, traced + " of " + all);
            Path shots = Path.of("target");
            Files.createDirectories(shots);
            Files.write(shots.resolve("views-questions.png"), browser.screenshot());

            // differential flame graph: the form offers both releases
            assertEquals("release:fixture-java@1.0.0", value(browser, "baseline"));
            assertEquals("release:fixture-java@2.0.0", value(browser, "comparison"));
            JsonNode button = browser.evaluate("(() => { const b = document.querySelector('#compare button');"
                    + " b.scrollIntoView(); const r = b.getBoundingClientRect();"
                    + " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()");
            browser.click(button.path("x").asDouble(), button.path("y").asDouble());
            browser.awaitTrue("window.chunkRelayView.diff !== null && window.chunkRelayView.state === 'drawn'",
                    Duration.ofSeconds(60));
            JsonNode diff = browser.evaluate("window.chunkRelayView.diff");
            assertEquals("release fixture-java@1.0.0", diff.path("baseline").asText());
            assertEquals("release fixture-java@2.0.0", diff.path("comparison").asText());
            Set<String> risen = new HashSet<>();
            for (JsonNode function : views.get("/api/v1/projects/1/diff?" + RANGE + "&profiler_id=" + profiler
                    + "&baseline=release:fixture-java@1.0.0&comparison=release:fixture-java@2.0.0").body()
                    .path("functions")) {
                if (function.path("totalChange").asDouble() > 0.001) {
                    risen.add(function.path("name").asText());
                }
            }
            JsonNode red = null;
            boolean blue = false;
            for (JsonNode label : diff.path("labels")) {
                if (label.path("color").asText().startsWith("hsl(0, 80%") && risen.contains(label.path("name").asText())
                        && (red == null || label.path("width").asDouble() > red.path("width").asDouble())) {
                    red = label;
                }
                blue |= label.path("color").asText().startsWith("hsl(220, 80%");
            }
            assertTrue(red != null, "a function whose share rose is red: " + diff.path("labels"));
            assertTrue(blue, "the functions whose share fell are blue");
            JsonNode canvas = browser.evaluate("(() => { const r = document.getElementById('diff')"
                    + ".getBoundingClientRect(); return {x: r.left, y: r.top}; })()");
            browser.mouseMove(canvas.path("x").asDouble() + red.path("x").asDouble() + 5,
                    canvas.path("y").asDouble() + red.path("y").asDouble() + 9);
            String tooltip = browser.evaluate("document.getElementById('tooltip').textContent").asText();
            assertTrue(tooltip.contains("baseline ") && tooltip.contains("comparison ") && tooltip.contains("change +"),
                    tooltip);
            Files.write(shots.resolve("views-diff.png"), browser.screenshot());

            // timeline: dragging across its middle narrows the range
            String from = value(browser, "from");
            JsonNode timeline = browser.evaluate("(() => { const c = document.getElementById('timeline');"
                    + " c.scrollIntoView(); const r = c.getBoundingClientRect();"
                    + " return {x: r.left, y: r.top + 40, w: r.width}; })()");
            double x = timeline.path("x").asDouble();
            double width = timeline.path("w").asDouble();
            browser.drag(x + width * 0.05, timeline.path("y").asDouble(), x + width * 0.2, timeline.path("y").asDouble());
            browser.awaitTrue("document.getElementById('from').value !== '" + from + "'", Duration.ofSeconds(30));
            awaitSettled(browser);
            assertNotEquals(from, value(browser, "from"));
            assertTrue(value(browser, "from").matches(TYPED_TIME) && value(browser, "to").matches(TYPED_TIME));
            assertTrue(value(browser, "from").compareTo(value(browser, "to")) < 0);
            assertEquals(List.of(), browser.errors(), "the page logged errors");
        }
    }

    private static void awaitSettled(HeadlessChromium browser) throws Exception {
        browser.awaitTrue("window.chunkRelayView && ['drawn', 'error', 'empty'].includes(window.chunkRelayView.state)",
                Duration.ofSeconds(60));
        assertEquals("drawn", browser.evaluate("window.chunkRelayView.state").asText(),
                browser.evaluate("window.chunkRelayView.error").asText());
    }

    private static String value(HeadlessChromium browser, String id) throws Exception {
        return browser.evaluate("document.getElementById('" + id + "').value").asText();
    }

    private static boolean contains(JsonNode array, String text) {
        for (JsonNode item : array) {
            if (item.asText().equals(text)) {
                return true;
            }
        }
        return false;
    }
}
