package chunkrelay.envelope.testing;

import chunkrelay.chunk.fixtures.SdkRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/** Speaks plain HTTP to a running relay, sending exact bytes and headers. */
public final class RelayClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    public RelayClient(URI base) {
        this.base = base;
    }

    /** An answer as received: its body's bytes, read as text or JSON on demand (profiles come gzipped or binary). */
    public record Answer(int status, byte[] bytes, HttpHeaders headers) {
        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        public String raw() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        /** The body as JSON; the missing node when empty. */
        public JsonNode body() {
            try {
                return bytes.length == 0 ? JSON.missingNode() : JSON.readTree(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public String detail() {
            return body().path("detail").asText(null);
        }

        public String causes() {
            return body().path("causes").toString();
        }
    }

    /** A request recorded from a real SDK, sent as recorded: path, query, headers and wire body. */
    public Answer replay(SdkRequest request) {
        String[] headers = request.headers().stream()
                .flatMap(header -> java.util.stream.Stream.of(header.name(), header.value()))
                .toArray(String[]::new);
        return post(request.pathAndQuery(), request.body(), headers);
    }

    public Answer post(String pathAndQuery, byte[] body, String... headers) {
        return send(pathAndQuery, HttpRequest.BodyPublishers.ofByteArray(body), headers);
    }

    /** A body streamed with chunked transfer encoding. */
    public Answer postStream(String pathAndQuery, Supplier<InputStream> body, String... headers) {
        return send(pathAndQuery, HttpRequest.BodyPublishers.ofInputStream(body), headers);
    }

    public Answer send(String pathAndQuery, HttpRequest.BodyPublisher body, String... headers) {
        return exchange(builder(pathAndQuery, headers).POST(body));
    }

    public Answer get(String pathAndQuery, String... headers) {
        return exchange(builder(pathAndQuery, headers).GET());
    }

    /** A CORS preflight and the like: {@code method} without a body. */
    public Answer request(String method, String pathAndQuery, String... headers) {
        return exchange(builder(pathAndQuery, headers).method(method, HttpRequest.BodyPublishers.noBody()));
    }

    private HttpRequest.Builder builder(String pathAndQuery, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(pathAndQuery))
                .timeout(Duration.ofSeconds(60));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return request;
    }

    private Answer exchange(HttpRequest.Builder request) {
        try {
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(response.statusCode(), response.body(), response.headers());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
