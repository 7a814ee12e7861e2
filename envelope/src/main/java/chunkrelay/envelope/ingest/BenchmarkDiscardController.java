package chunkrelay.envelope.ingest;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

/**
 * The floor of the end-to-end benchmark: reads and decodes a request body exactly as the envelope endpoint does
 * (same thread pool, same {@link ContentDecoding}, same limits) and discards it. Off unless
 * {@code relay.benchmark.discard-endpoint: true}.
 */
@Controller
@Requires(property = "relay.benchmark.discard-endpoint", value = "true")
class BenchmarkDiscardController {
    private final ContentDecoding decoding;

    BenchmarkDiscardController(ContentDecoding decoding) {
        this.decoding = decoding;
    }

    @Post(uri = "/benchmark/discard", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<Map<String, Long>> discard(HttpRequest<?> request, @Nullable @Body InputStream body)
            throws IOException {
        try (InputStream wire = body == null ? InputStream.nullInputStream() : body) {
            InputStream decoded = decoding.decode(
                    ContentDecoding.encodingOf(request.getHeaders().get(HttpHeaders.CONTENT_ENCODING)), wire);
            return HttpResponse.ok(Map.of("decoded_bytes", decoded.transferTo(OutputStream.nullOutputStream())));
        }
    }
}
