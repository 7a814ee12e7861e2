package chunkrelay.envelope.views;

import chunkrelay.chunk.fixtures.Fixtures;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flame-graph page in a real headless browser (Debian's Chromium over the DevTools protocol) after the recorded
 * SDK requests: it lists the Java fixture's chunks, draws its flame graph of wall-clock time with the busiest frame
 * labelled, shows a frame's full name, file, samples and share under the pointer, and logs no error. The screenshot
 * is saved as {@code envelope/target/views-page.png}.
 */
@Tag("external")
class ProfilePageBrowserTest {
    private static final String RANGE = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";

    @Test
    void pageListsTheJavaChunksAndDrawsTheirFlameGraphWithTheBusiestFrameVisible() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of());
             HeadlessChromium browser = HeadlessChromium.start(1400, 1000)) {
            for (SdkRequest request : Fixtures.sdkRequests()) {
                assertEquals(200, relay.client().replay(request).status(), request.name());
            }
            URI base = URI.create("http://localhost:" + relay.uri().getPort());
            RelayClient views = new RelayClient(base);
            String profiler = javaProfiler(views);
            String busiest = busiestFrame(views, profiler);

            browser.navigate(base.resolve("/?project=1&" + RANGE + "&profiler=" + profiler));
            browser.awaitTrue("window.chunkRelayView && ['drawn', 'error', 'empty'].includes(window.chunkRelayView.state)",
                    Duration.ofSeconds(60));
            assertEquals("drawn", browser.evaluate("window.chunkRelayView.state").asText(),
                    browser.evaluate("window.chunkRelayView.error").asText());
            assertEquals(2, browser.evaluate("document.querySelectorAll('#chunkRows tr').length").asInt(),
                    "the Java fixture's two chunks");
            assertEquals(profiler, browser.evaluate("document.getElementById('profiler').value").asText());
            String title = browser.evaluate("document.getElementById('graphTitle').textContent").asText();
            assertTrue(title.contains(" samples of wall-clock time, "),
                    "the page says what the OTLP form says the Java SDK sampled: " + title);

            JsonNode label = null;
            for (JsonNode drawn : browser.evaluate("window.chunkRelayView.labels")) {
                if (drawn.path("name").asText().equals(busiest)
                        && (label == null || drawn.path("width").asDouble() > label.path("width").asDouble())) {
                    label = drawn;
                }
            }
            assertTrue(label != null, "the busiest frame " + busiest + " is not labelled; labels: "
                    + browser.evaluate("window.chunkRelayView.labels.map(l => l.name)"));
            assertEquals(busiest, label.path("text").asText(), "its label is readable, not cut");
            assertTrue(label.path("width").asDouble() > 300, "it is wide: " + label);

            JsonNode canvas = browser.evaluate("(() => { const r = document.getElementById('flame')"
                    + ".getBoundingClientRect(); return {x: r.left, y: r.top}; })()");
            browser.mouseMove(canvas.path("x").asDouble() + label.path("x").asDouble() + 10,
                    canvas.path("y").asDouble() + label.path("y").asDouble() + 9);
            String tooltip = browser.evaluate("document.getElementById('tooltip').innerHTML").asText();
            assertTrue(tooltip.contains(busiest) && tooltip.contains("samples") && tooltip.contains("% of the view"),
                    "tooltip: " + tooltip);
            // Java frames carry their class as the file (the SDK sends no file name)
            assertTrue(tooltip.contains("<br>java.lang.Thread<br>"), "the frame's file: " + tooltip);

            Path screenshot = Path.of("target", "views-page.png");
            Files.createDirectories(screenshot.getParent());
            Files.write(screenshot, browser.screenshot());
            assertTrue(Files.size(screenshot) > 10_000);
            assertEquals(List.of(), browser.errors(), "the page logged errors");
        }
    }

    @Test
    void pageOfARelayThatArchivedNothingSaysSoWithoutErrors() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of());
             HeadlessChromium browser = HeadlessChromium.start(1000, 700)) {
            browser.navigate(URI.create("http://127.0.0.1:" + relay.uri().getPort() + "/"));
            browser.awaitTrue("window.chunkRelayView && ['drawn', 'error', 'empty'].includes(window.chunkRelayView.state)",
                    Duration.ofSeconds(60));
            assertEquals("empty", browser.evaluate("window.chunkRelayView.state").asText(),
                    browser.evaluate("window.chunkRelayView.error").asText());
            assertEquals("Nothing archived yet: point an SDK at this relay.",
                    browser.evaluate("document.getElementById('status').textContent").asText());
            assertEquals(List.of(), browser.errors(), "the page logged errors");
        }
    }

    private static String javaProfiler(RelayClient views) {
        JsonNode chunks = views.get("/api/v1/projects/1/chunks?" + RANGE + "&platform=java").body().path("chunks");
        return chunks.get(0).path("profilerId").asText();
    }

    /** The root frame of the most samples, from the collapsed export: what a flame graph draws widest. */
    private static String busiestFrame(RelayClient views, String profiler) {
        String collapsed = views.get("/api/v1/projects/1/profile?" + RANGE + "&profiler_id=" + profiler
                + "&format=collapsed").raw();
        Map<String, Long> byRoot = new HashMap<>();
        for (String line : collapsed.split("\n")) {
            String stack = line.substring(0, line.lastIndexOf(' '));
            long count = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            byRoot.merge(stack.split(";")[0], count, Long::sum);
        }
        return byRoot.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }
}
