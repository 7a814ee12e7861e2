package chunkrelay.envelope.upstream;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RetryLater;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.inject.Named;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import java.util.Set;

/**
 * The other Sentry endpoints SDKs post to ({@code /api/{id}/store/}, {@code security}, {@code minidump}, ...): passed
 * on to the upstream as they are, the body streamed, headers copied but for hop-by-hop ones, with the client
 * chain ({@link ForwardedFor}) as {@code X-Forwarded-For}, as Relay's catch-all forward does; the upstream's answer
 * comes back.
 * Without an upstream they are 404. The route leaves out {@code envelope}, so that the envelope endpoint has one
 * route only (with two, which one answers depends on the order the routes are loaded in, and the packaged jar's
 * order sent envelopes here).
 */
@Controller
public class UpstreamPassThroughController {
    /** Headers the JDK client sets itself, and hop-by-hop headers that must not be passed on. */
    private static final Set<String> NOT_PASSED = Set.of("connection", "content-length", "expect", "host", "upgrade",
            "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding",
            "x-forwarded-for");

    private final UpstreamConfig config;
    private final RetryLater retryLater;
    private final HttpClient http;

    public UpstreamPassThroughController(UpstreamConfig config, RetryLater retryLater,
                                         @Named(UpstreamHttpFactory.UPSTREAM) HttpClient http) {
        this.config = config;
        this.retryLater = retryLater;
        this.http = http;
    }

    @Post(uri = "/api/{projectId}/{endpoint:(?!envelope/?$)[^/]+}/", consumes = MediaType.ALL, produces = MediaType.ALL)
    @ExecuteOn(TaskExecutors.BLOCKING)
    public MutableHttpResponse<byte[]> passOn(@PathVariable String projectId, @PathVariable String endpoint,
                                              HttpRequest<?> request, @Nullable @Body InputStream body) {
        if (!config.enabled() || !projectId.matches("\\d+") || !endpoint.matches("[a-z_]+")) {
            throw new RelayError(HttpStatus.NOT_FOUND, "not found");
        }
        URI target = URI.create(config.base() + "/api/" + projectId + "/" + endpoint + "/"
                + (request.getUri().getRawQuery() == null ? "" : "?" + request.getUri().getRawQuery()));
        java.net.http.HttpRequest.Builder upstream = java.net.http.HttpRequest.newBuilder(target)
                .timeout(config.requestTimeout().multipliedBy(12))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                        () -> body == null ? InputStream.nullInputStream() : body));
        request.getHeaders().forEach((name, values) -> {
            if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> upstream.header(name, value));
            }
        });
        upstream.header("X-Forwarded-For", ForwardedFor.of(request));
        java.net.http.HttpResponse<byte[]> answer;
        try {
            answer = http.send(upstream.build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw new RelayError(HttpStatus.GATEWAY_TIMEOUT, "upstream request timed out");
        } catch (IOException e) {
            throw new RelayError(HttpStatus.BAD_GATEWAY, "upstream unavailable", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw retryLater.unavailable("the relay is stopping");
        }
        MutableHttpResponse<byte[]> response = HttpResponse.status(HttpStatus.valueOf(answer.statusCode()));
        answer.headers().map().forEach((name, values) -> {
            if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                values.forEach(value -> response.header(name, value));
            }
        });
        return response.body(answer.body());
    }
}
