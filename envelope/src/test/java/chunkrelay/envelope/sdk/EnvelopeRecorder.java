package chunkrelay.envelope.sdk;

import chunkrelay.envelope.errors.RelayError;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * A recording hop in front of a real relay: a real HTTP server on loopback that passes each request unchanged
 * (bytes, path, query, headers) to the relay, hands the relay's answer back to the SDK, and records the request,
 * gzip-decoded and split into items, with the relay's status. The SDK talks to the relay, and the test sees every
 * envelope and every answer.
 */
public final class EnvelopeRecorder implements AutoCloseable {

    /** Request headers the HTTP client sets itself when forwarding. */
    private static final Set<String> HOP_BY_HOP = Set.of("host", "connection", "content-length", "transfer-encoding",
            "expect", "upgrade", "keep-alive", "http2-settings");
    /** Relay's answer headers that SDKs act on. */
    private static final List<String> ANSWER_HEADERS = List.of("Retry-After", "X-Sentry-Rate-Limits");

    private final HttpServer server;
    private final RelayTarget relay;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private final List<ReceivedEnvelope> envelopes = new CopyOnWriteArrayList<>();

    private EnvelopeRecorder(RelayTarget relay) throws IOException {
        this.relay = relay;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * A hop in front of the relay at {@code relay}; the relay decides every answer. Project and key only go into
     * {@link #target()}'s DSN.
     */
    public static EnvelopeRecorder forwardingTo(RelayTarget relay) throws IOException {
        return new EnvelopeRecorder(relay);
    }

    /** Where to point an SDK: this hop, with the relay's project and key. */
    public RelayTarget target() {
        InetSocketAddress address = server.getAddress();
        URI base = URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort());
        return new RelayTarget(base, relay.projectId(), relay.publicKey());
    }

    /** Every request received so far, in arrival order. */
    public List<ReceivedEnvelope> envelopes() {
        return List.copyOf(envelopes);
    }

    /** The payloads of every profile_chunk item received so far, as sent. */
    public List<byte[]> profileChunkPayloads() {
        return envelopes.stream()
                .flatMap(envelope -> envelope.itemsOfType("profile_chunk").stream())
                .map(ReceivedEnvelope.Item::payload)
                .toList();
    }

    /** The payloads of every profile_chunk item received so far, parsed. */
    public List<JsonNode> profileChunks() {
        return envelopes.stream()
                .flatMap(envelope -> envelope.itemsOfType("profile_chunk").stream())
                .map(ReceivedEnvelope.Item::payloadJson)
                .toList();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        URI uri = exchange.getRequestURI();
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, List.copyOf(values)));
        try {
            byte[] raw;
            try (InputStream body = exchange.getRequestBody()) {
                raw = body.readAllBytes();
            }
            forward(exchange, uri, headers, raw);
        } catch (RuntimeException e) {
            // Recorded and answered, so the run check names the request instead of the SDK seeing a reset.
            respond(exchange, uri, headers, 500, detail("recorder failed: " + e), null, List.of());
        } finally {
            exchange.close();
        }
    }

    private void forward(HttpExchange exchange, URI uri, Map<String, List<String>> headers, byte[] raw)
            throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(relay.baseUrl().resolve(uri.getRawPath()
                        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
                .timeout(Duration.ofSeconds(60))
                .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(raw));
        headers.forEach((name, values) -> {
            if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> request.header(name, value));
            }
        });
        HttpResponse<String> answer;
        try {
            answer = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted forwarding to " + relay.baseUrl(), e);
        } catch (IOException e) {
            // 502 marks the hop, not the relay, as what failed; the run check then reports it.
            respond(exchange, uri, headers, 502, detail("relay unreachable: " + e), null, List.of());
            return;
        }
        ANSWER_HEADERS.forEach(name -> answer.headers().firstValue(name)
                .ifPresent(value -> exchange.getResponseHeaders().set(name, value)));
        JsonNode header = null;
        List<ReceivedEnvelope.Item> items = List.of();
        try {
            byte[] envelope = decode(headers.getOrDefault("Content-Encoding", List.of("")).get(0).trim(), raw);
            ReceivedEnvelope.Split split = ReceivedEnvelope.split(envelope);
            header = split.header();
            items = split.items();
        } catch (IOException | RelayError e) {
            // Left for the relay to judge: the recording keeps the request line, headers and the relay's status.
        }
        respond(exchange, uri, headers, answer.statusCode(), answer.body(), header, items);
    }

    private static String detail(String message) {
        return JsonNodeFactory.instance.objectNode().put("detail", message).toString();
    }

    private static byte[] decode(String encoding, byte[] raw) throws IOException {
        if (!encoding.equalsIgnoreCase("gzip")) {
            return raw;
        }
        try (InputStream gunzip = new GZIPInputStream(new ByteArrayInputStream(raw))) {
            return gunzip.readAllBytes();
        }
    }

    private void respond(HttpExchange exchange, URI uri, Map<String, List<String>> headers, int status, String body,
                         JsonNode envelopeHeader, List<ReceivedEnvelope.Item> items) throws IOException {
        envelopes.add(new ReceivedEnvelope(uri.getPath(), Optional.ofNullable(uri.getRawQuery()).orElse(""), headers,
                status, envelopeHeader == null ? JsonNodeFactory.instance.objectNode() : envelopeHeader,
                List.copyOf(items)));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
