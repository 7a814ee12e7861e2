package chunkrelay.envelope.sdk;

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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * A stand-in relay for SDK runs: a real HTTP server on loopback that takes {@code POST /api/{id}/envelope/}, decodes
 * gzip, splits the envelope, records it with the status it answered, and answers like Relay ({@code 200
 * {"id":...}}). It checks the project id and public key of its {@link RelayTarget}, so a DSN mistake shows up as a
 * 401 or 404 instead of silently passing.
 */
public final class EnvelopeRecorder implements AutoCloseable {

    private static final Pattern ENVELOPE_PATH = Pattern.compile("/api/(\\d+)/envelope/");
    private static final Pattern SENTRY_KEY = Pattern.compile("sentry_key=([^,&\\s]+)");

    private final HttpServer server;
    private final long projectId;
    private final String publicKey;
    private final List<ReceivedEnvelope> envelopes = new CopyOnWriteArrayList<>();

    private EnvelopeRecorder(long projectId, String publicKey) throws IOException {
        this.projectId = projectId;
        this.publicKey = publicKey;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
    }

    public static EnvelopeRecorder start(long projectId, String publicKey) throws IOException {
        EnvelopeRecorder recorder = new EnvelopeRecorder(projectId, publicKey);
        recorder.server.start();
        return recorder;
    }

    public RelayTarget target() {
        InetSocketAddress address = server.getAddress();
        URI base = URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort());
        return new RelayTarget(base, projectId, publicKey);
    }

    /** Every request received so far, in arrival order. */
    public List<ReceivedEnvelope> envelopes() {
        return List.copyOf(envelopes);
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
        try (exchange) {
            URI uri = exchange.getRequestURI();
            Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, List.copyOf(values)));
            byte[] raw;
            try (InputStream body = exchange.getRequestBody()) {
                raw = body.readAllBytes();
            }
            Matcher path = ENVELOPE_PATH.matcher(uri.getPath());
            if (!exchange.getRequestMethod().equals("POST") || !path.matches()) {
                respond(exchange, uri, headers, 404, "{\"detail\":\"not found\"}", null, List.of());
                return;
            }
            if (Long.parseLong(path.group(1)) != projectId || !publicKey.equals(sentryKey(uri, headers).orElse(""))) {
                respond(exchange, uri, headers, 401, "{\"detail\":\"unknown project or key\"}", null, List.of());
                return;
            }
            String encoding = headers.getOrDefault("Content-Encoding", List.of("identity")).get(0).trim();
            byte[] envelope;
            if (encoding.equalsIgnoreCase("gzip")) {
                try (InputStream gunzip = new GZIPInputStream(new ByteArrayInputStream(raw))) {
                    envelope = gunzip.readAllBytes();
                } catch (IOException e) {
                    respond(exchange, uri, headers, 400, "{\"detail\":\"invalid gzip body\"}", null, List.of());
                    return;
                }
            } else if (encoding.isEmpty() || encoding.equalsIgnoreCase("identity")) {
                envelope = raw;
            } else {
                respond(exchange, uri, headers, 415, "{\"detail\":\"unsupported encoding\"}", null, List.of());
                return;
            }
            JsonNode header;
            List<ReceivedEnvelope.Item> items;
            try {
                header = ReceivedEnvelope.parseHeader(envelope);
                items = ReceivedEnvelope.parseItems(envelope);
            } catch (IOException e) {
                respond(exchange, uri, headers, 400, "{\"detail\":\"invalid envelope: " + e.getMessage()
                        .replace('"', '\'') + "\"}", null, List.of());
                return;
            }
            String id = header.path("event_id").asText("");
            respond(exchange, uri, headers, 200, id.isEmpty() ? "{}" : "{\"id\":\"" + id + "\"}", header, items);
        }
    }

    private void respond(HttpExchange exchange, URI uri, Map<String, List<String>> headers, int status, String body,
                         JsonNode envelopeHeader, List<ReceivedEnvelope.Item> items) throws IOException {
        envelopes.add(new ReceivedEnvelope(uri.getPath(), Optional.ofNullable(uri.getRawQuery()).orElse(""), headers,
                status, envelopeHeader == null ? JsonNodeFactory.instance.objectNode() : envelopeHeader,
                List.copyOf(items)));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static Optional<String> sentryKey(URI uri, Map<String, List<String>> headers) {
        for (String source : List.of(Optional.ofNullable(uri.getRawQuery()).orElse(""),
                String.join(",", headers.getOrDefault("X-Sentry-Auth", List.of())))) {
            Matcher key = SENTRY_KEY.matcher(source);
            if (key.find()) {
                return Optional.of(key.group(1));
            }
        }
        return Optional.empty();
    }
}
