package chunkrelay.envelope.health;

import chunkrelay.envelope.views.HeadlessChromium;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The page's health panel in Chromium, as the tests that look at it show it and keep its picture. */
public final class HealthPanel {
    private HealthPanel() {
    }

    /** Opens the page and waits until it has drawn its graph and its health panel. */
    public static void show(HeadlessChromium browser, URI address) throws Exception {
        // the page before this one is not taken for it while the navigation is under way
        browser.evaluate("window.chunkRelayView = undefined");
        browser.navigate(address);
        browser.awaitTrue("Boolean(window.chunkRelayView) && (window.chunkRelayView.state === 'error'"
                + " || window.chunkRelayView.state === 'drawn' && Boolean(window.chunkRelayView.health))",
                Duration.ofSeconds(60));
        assertEquals("drawn", browser.evaluate("window.chunkRelayView.state").asText(),
                browser.evaluate("window.chunkRelayView.error").asText());
    }

    /** Saves the panel's picture as {@code target/<name>}, and checks the page logged no error. */
    public static void savePicture(HeadlessChromium browser, String name) throws Exception {
        browser.evaluate("document.getElementById('health').scrollIntoView()");
        Path picture = Path.of("target", name);
        Files.createDirectories(picture.getParent());
        Files.write(picture, browser.screenshotOf("#health"));
        assertTrue(Files.size(picture) > 10_000);
        assertEquals(List.of(), browser.errors(), "the page logged errors");
    }
}
