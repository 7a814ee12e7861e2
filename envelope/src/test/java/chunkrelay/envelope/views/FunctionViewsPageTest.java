package chunkrelay.envelope.views;

import chunkrelay.envelope.rollups.RollupBuilder;
import chunkrelay.envelope.testing.ReleaseFleet;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 43's page in headless Chromium on a 20-process fleet of two releases ({@link ReleaseFleet}): the functions
 * table beside the flame graph lists every function, encode_json (the most self time) first; clicking its row
 * focuses the flame graph on it (only the samples whose stack holds it, its boxes marked); comparing the two releases
 * lists encode_json first among the regressions, the only one flagged; clicking a regression row focuses it too.
 * Screenshot: {@code envelope/target/views-functions.png}.
 */
@Tag("external")
class FunctionViewsPageTest {
    private static final long MINUTE = 60_000_000_000L;

    @Test
    void functionsTableAndRegressionsListFocusTheFlameGraphOnTheClickedFunction() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "0s",
                     "relay.rollups.interval", "1h"));
             HeadlessChromium browser = HeadlessChromium.start(1400, 2400)) {
            long now = relay.clock().instant().getEpochSecond() * 1_000_000_000L;
            long start = Math.floorDiv(now, 60 * MINUTE) * 60 * MINUTE - 4 * 60 * MINUTE;
            ReleaseFleet.seededAsFrom(start).send(relay, start, 6, 500);
            relay.bean(RollupBuilder.class).runOnce();
            URI base = URI.create("http://localhost:" + relay.uri().getPort());
            browser.navigate(base.resolve("/?project=1&from=" + Instant.ofEpochSecond(0, start) + "&to="
                    + Instant.ofEpochSecond(0, start + 10 * MINUTE)));
            awaitSettled(browser);

            JsonNode functions = browser.evaluate("window.chunkRelayView.functions");
            assertEquals(30, functions.path("functions").asInt(), functions.toString());
            assertEquals(browser.evaluate("window.chunkRelayView.flameSamples").asLong(),
                    functions.path("samples").asLong(), "the table is of the flame graph's samples");
            JsonNode row = rowAt(browser, "#functionRows tr");
            assertEquals(ReleaseFleet.REGRESSED_NAME, row.path("name").asText());
            browser.click(row.path("x").asDouble(), row.path("y").asDouble());
            browser.awaitTrue("window.chunkRelayView.focus !== null", Duration.ofSeconds(30));
            JsonNode focus = browser.evaluate("window.chunkRelayView.focus");
            assertEquals(ReleaseFleet.REGRESSED_NAME, focus.path("name").asText());
            assertEquals(row.path("total").asLong(), focus.path("samples").asLong(),
                    "the flame graph holds the samples whose stack has the function");
            assertTrue(focus.path("boxes").asInt() > 0, "its box is drawn and labelled: " + focus);
            assertTrue(browser.evaluate("document.getElementById('graphTitle').textContent").asText()
                    .contains("focused on " + ReleaseFleet.REGRESSED_NAME));

            // compare: the form is filled with both releases; the regressions list beside it
            assertEquals("release:" + ReleaseFleet.OLD, browser.evaluate(
                    "document.getElementById('baseline').value").asText());
            JsonNode button = browser.evaluate("(() => { const b = document.querySelector('#compare button');"
                    + " b.scrollIntoView(); const r = b.getBoundingClientRect();"
                    + " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()");
            browser.click(button.path("x").asDouble(), button.path("y").asDouble());
            browser.awaitTrue("window.chunkRelayView.regressions !== null && window.chunkRelayView.state === 'drawn'",
                    Duration.ofSeconds(60));
            JsonNode regressions = browser.evaluate("window.chunkRelayView.regressions");
            assertEquals(ReleaseFleet.REGRESSED_NAME, regressions.path("first").asText(), regressions.toString());
            assertEquals(1, regressions.path("flagged").size(), regressions.toString());
            assertEquals("REGRESSION", regressions.path("flagged").get(0).path("verdict").asText());
            Path shots = Path.of("target");
            Files.createDirectories(shots);
            Files.write(shots.resolve("views-functions.png"), browser.screenshot());

            // a regression row: clicking it again (the focused function) shows all; another focuses that one
            JsonNode regressed = rowAt(browser, "#regressionRows tr");
            browser.click(regressed.path("x").asDouble(), regressed.path("y").asDouble());
            browser.awaitTrue("window.chunkRelayView.focus === null", Duration.ofSeconds(30));
            JsonNode second = rowAt(browser, "#regressionRows tr:nth-child(2)");
            browser.click(second.path("x").asDouble(), second.path("y").asDouble());
            browser.awaitTrue("window.chunkRelayView.focus !== null", Duration.ofSeconds(30));
            assertEquals(second.path("name").asText(), browser.evaluate("window.chunkRelayView.focus.name").asText());
            assertEquals(List.of(), browser.errors(), "the page logged errors");
        }
    }

    /** Where a table row is on screen, scrolled into view, with its function and counts. */
    private static JsonNode rowAt(HeadlessChromium browser, String selector) throws Exception {
        return browser.evaluate("(() => { const r = document.querySelector('" + selector + "'); r.scrollIntoView({block: 'center'});"
                + " const b = r.getBoundingClientRect();"
                + " return {x: b.left + 30, y: b.top + b.height / 2, name: r.dataset.name,"
                + " total: Number(r.dataset.total || 0)}; })()");
    }

    private static void awaitSettled(HeadlessChromium browser) throws Exception {
        browser.awaitTrue("window.chunkRelayView && ['drawn', 'error', 'empty'].includes(window.chunkRelayView.state)",
                Duration.ofSeconds(60));
        assertEquals("drawn", browser.evaluate("window.chunkRelayView.state").asText(),
                browser.evaluate("window.chunkRelayView.error").asText());
    }
}
