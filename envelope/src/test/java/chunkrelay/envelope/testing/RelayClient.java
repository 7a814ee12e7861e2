package chunkrelay.envelope.testing;

import chunkrelay.chunk.fixtures.SdkRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;
import java.io.InputStream;

/** Speaks plain HTTP to a running relay, sending exact bytes and headers. */
public final class RelayClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    public RelayClient(URI base) {
        this.base = base;
    }

    public record Answer(int status, JsonNode body, String raw, HttpHeaders headers) {
        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        public String detail() {
            return body.path("detail").asText(null);
        }

        public String causes() {
            return body.path("causes").toString();
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
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(pathAndQuery))
                .timeout(Duration.ofSeconds(60)).POST(body);
        if (headers.length > 0) {
            request.headers(headers);
        }
        return exchange(request);
    }

    public Answer get(String pathAndQuery) {
        return exchange(HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(Duration.ofSeconds(60)).GET());
    }

    private Answer exchange(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            String raw = response.body();
            JsonNode json = raw.isEmpty() ? JSON.missingNode() : JSON.readTree(raw);
            return new Answer(response.statusCode(), json, raw, response.headers());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
