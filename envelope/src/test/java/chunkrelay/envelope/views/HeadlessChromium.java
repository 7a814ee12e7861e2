package chunkrelay.envelope.views;

import chunkrelay.chunk.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Debian's Chromium, headless, driven over the DevTools protocol with the JDK's WebSocket client (puppeteer needs a
 * newer Node than this machine has): navigate, evaluate, move the mouse, take a screenshot, and collect what the page
 * logs as an error. Started with the flags that keep it off the network and a fresh profile directory.
 */
public final class HeadlessChromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path BINARY = Path.of("/usr/bin/chromium");

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<String> errors = new ArrayList<>();

    private HeadlessChromium(Process process, Path profile, WebSocket socket) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
    }

    public static HeadlessChromium start(int width, int height) throws Exception {
        if (!Files.isExecutable(BINARY)) {
            throw new AssertionError(BINARY + " is missing: .ci/run installs Debian's chromium");
        }
        Path profile = Files.createTempDirectory("chunk-relay-chromium-");
        Process process = new ProcessBuilder(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--remote-debugging-port=0",
                "--window-size=" + width + "," + height, "--user-data-dir=" + profile, "about:blank")
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
        Path portFile = profile.resolve("DevToolsActivePort");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(portFile) || Files.readAllLines(portFile).size() < 2) {
            if (!process.isAlive() || System.nanoTime() > until) {
                throw new AssertionError("chromium did not start: " + Files.readString(profile.resolve("chromium.log")));
            }
            Thread.sleep(100);
        }
        int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
        HttpClient http = HttpClient.newHttpClient();
        JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/json/list")).build(), HttpResponse.BodyHandlers.ofString()).body());
        String page = null;
        for (JsonNode target : targets) {
            if (target.path("type").asText().equals("page")) {
                page = target.path("webSocketDebuggerUrl").asText();
            }
        }
        if (page == null) {
            throw new AssertionError("chromium has no page target: " + targets);
        }
        Listener listener = new Listener();
        WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).get(30, TimeUnit.SECONDS);
        HeadlessChromium chromium = new HeadlessChromium(process, profile, socket);
        listener.owner = chromium;
        chromium.call("Runtime.enable", JSON.createObjectNode());
        chromium.call("Log.enable", JSON.createObjectNode());
        chromium.call("Page.enable", JSON.createObjectNode());
        return chromium;
    }

    public JsonNode call(String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", params);
        socket.sendText(message.toString(), true).get(30, TimeUnit.SECONDS);
        JsonNode result = answer.get(60, TimeUnit.SECONDS);
        if (result.has("error")) {
            throw new AssertionError(method + " failed: " + result.path("error"));
        }
        return result.path("result");
    }

    public void navigate(URI url) throws Exception {
        call("Page.navigate", JSON.createObjectNode().put("url", url.toString()));
    }

    /** The value of a JavaScript expression, awaited if it is a promise. */
    public JsonNode evaluate(String expression) throws Exception {
        JsonNode result = call("Runtime.evaluate", JSON.createObjectNode().put("expression", expression)
                .put("returnByValue", true).put("awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new AssertionError("'" + expression + "' threw: " + result.path("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    public void awaitTrue(String expression, Duration timeout) throws InterruptedException {
        Await.until(expression, timeout, () -> {
            try {
                return evaluate(expression).asBoolean(false);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception e) {
                throw new IllegalStateException("evaluating " + expression, e);
            }
        });
    }

    public void mouseMove(double x, double y) throws Exception {
        call("Input.dispatchMouseEvent", JSON.createObjectNode().put("type", "mouseMoved").put("x", x).put("y", y));
    }

    /** A left click at a point of the viewport. */
    public void click(double x, double y) throws Exception {
        mouse("mousePressed", x, y);
        mouse("mouseReleased", x, y);
    }

    /** A left-button drag from one point to another, in a few moves. */
    public void drag(double fromX, double fromY, double toX, double toY) throws Exception {
        mouse("mousePressed", fromX, fromY);
        for (int step = 1; step <= 4; step++) {
            call("Input.dispatchMouseEvent", JSON.createObjectNode().put("type", "mouseMoved").put("button", "left")
                    .put("buttons", 1).put("x", fromX + (toX - fromX) * step / 4).put("y", fromY + (toY - fromY) * step / 4));
        }
        mouse("mouseReleased", toX, toY);
    }

    private void mouse(String type, double x, double y) throws Exception {
        call("Input.dispatchMouseEvent", JSON.createObjectNode().put("type", type).put("x", x).put("y", y)
                .put("button", "left").put("clickCount", 1));
    }

    public byte[] screenshot() throws Exception {
        return java.util.Base64.getDecoder().decode(call("Page.captureScreenshot",
                JSON.createObjectNode().put("format", "png")).path("data").asText());
    }

    /** A picture of the first element {@code selector} matches, whole even where it lies beyond the viewport. */
    public byte[] screenshotOf(String selector) throws Exception {
        JsonNode box = evaluate("(() => { const r = document.querySelector('" + selector + "').getBoundingClientRect();"
                + " return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height}; })()");
        ObjectNode clip = JSON.createObjectNode().put("x", box.path("x").asDouble()).put("y", box.path("y").asDouble())
                .put("width", box.path("width").asDouble()).put("height", box.path("height").asDouble()).put("scale", 1);
        ObjectNode params = JSON.createObjectNode().put("format", "png").put("captureBeyondViewport", true);
        params.set("clip", clip);
        return java.util.Base64.getDecoder().decode(call("Page.captureScreenshot", params).path("data").asText());
    }

    /** What the page reported as an error: console errors, uncaught exceptions, failed loads. */
    public synchronized List<String> errors() {
        return List.copyOf(errors);
    }

    private synchronized void event(JsonNode message) {
        String method = message.path("method").asText();
        JsonNode params = message.path("params");
        if (method.equals("Runtime.consoleAPICalled") && params.path("type").asText().equals("error")) {
            errors.add("console.error: " + params.path("args"));
        } else if (method.equals("Runtime.exceptionThrown")) {
            errors.add("exception: " + params.path("exceptionDetails"));
        } else if (method.equals("Log.entryAdded") && params.path("entry").path("level").asText().equals("error")) {
            errors.add("log: " + params.path("entry").path("text").asText() + " " + params.path("entry").path("url"));
        }
    }

    @Override
    public void close() throws Exception {
        socket.abort();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        try (Stream<Path> files = Files.walk(profile)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // chromium may still be writing its profile as it exits; the directory is in /tmp
        }
    }

    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        private volatile HeadlessChromium owner;

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                try {
                    JsonNode message = JSON.readTree(text.toString());
                    HeadlessChromium chromium = owner;
                    if (message.has("id")) {
                        CompletableFuture<JsonNode> answer = chromium == null ? null
                                : chromium.pending.remove(message.path("id").asInt());
                        if (answer != null) {
                            answer.complete(message);
                        }
                    } else if (chromium != null) {
                        chromium.event(message);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException("unreadable DevTools message", e);
                }
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
