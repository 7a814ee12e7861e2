package chunkrelay.envelope.testing;

import chunkrelay.envelope.ingest.EnvelopeReader;
import chunkrelay.envelope.ingest.ItemHeader;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;

/**
 * An upstream Sentry for tests: a real HTTP server that parses every envelope it receives with the relay's own
 * reader and keeps those it answered 2xx, with their path and headers. What it answers is up to the test.
 */
public final class TestUpstream implements AutoCloseable {
    /** One envelope as received: path, headers (lower-case names), envelope header and items, and the answer. */
    public record Received(String path, Map<String, List<String>> headers, ObjectNode header, List<Item> items,
                           int status) {
        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }
    }

    public record Item(String type, ObjectNode header, byte[] payload) {
    }

    /** An answer: status and extra headers. */
    public record Answer(int status, Map<String, String> headers) {
        public static Answer ok() {
            return new Answer(200, Map.of());
        }
    }

    private final HttpServer server;
    private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<Received, Answer> answers = request -> Answer.ok();

    public TestUpstream() throws IOException {
        this(4);
    }

    /** An upstream that answers up to {@code threads} requests at once, as a busy Sentry answers many. */
    public TestUpstream(int threads) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.start();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** How the next requests are answered, decided per request. */
    public void answer(Function<Received, Answer> answers) {
        this.answers = answers;
    }

    /** Every envelope received, answered as it was. */
    public List<Received> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    /** The envelopes answered 2xx: what the upstream took. */
    public List<Received> accepted() {
        return received().stream().filter(r -> r.status() / 100 == 2).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        Map<String, List<String>> headers = new java.util.HashMap<>();
        exchange.getRequestHeaders().forEach((name, values) ->
                headers.put(name.toLowerCase(java.util.Locale.ROOT), List.copyOf(values)));
        EnvelopeReader reader = new EnvelopeReader(new ByteArrayInputStream(body), 1 << 20);
        ObjectNode header = reader.readHeaders();
        List<Item> items = new ArrayList<>();
        ItemHeader item;
        while ((item = reader.nextItem()) != null) {
            items.add(new Item(item.type(), item.json(), reader.readPayload(Integer.MAX_VALUE)));
        }
        Received request = new Received(exchange.getRequestURI().getPath(), headers, header, items, 0);
        Answer answer = answers.apply(request);
        received.add(new Received(request.path(), headers, header, items, answer.status()));
        answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        byte[] reply = "{}".getBytes();
        exchange.sendResponseHeaders(answer.status(), reply.length);
        exchange.getResponseBody().write(reply);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
