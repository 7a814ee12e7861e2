package chunkrelay.envelope.upstream;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RetryLater;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.telemetry.RelayMeter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
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
import jakarta.inject.Named;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * The other Sentry endpoints SDKs post to ({@code /api/{id}/store/}, {@code security}, {@code minidump}, ...): passed
 * on to the upstream as they are, the body streamed, headers copied but for hop-by-hop ones, with the client
 * chain ({@link ForwardedFor}) as {@code X-Forwarded-For}, as Relay's catch-all forward does; the upstream's answer
 * comes back.
 * Each request is passed on from a thread of its own ({@code upstream-pass-through-N}, at most
 * {@code relay.upstream.pass-through-requests}; beyond them 503 with {@code Retry-After}), which reads the SDK's body
 * and hands it to the one upstream HTTP client ({@link PassThroughBody}): an SDK or an upstream that is slow holds
 * that thread, never the server's threads or the client's, which the senders share.
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
    private final ExecutorService passing;
    private final Counter refused;

    public UpstreamPassThroughController(UpstreamConfig config, RetryLater retryLater,
                                         @Named(UpstreamHttpFactory.UPSTREAM) HttpClient http, BackgroundWork work,
                                         MeterRegistry meters) {
        this.config = config;
        this.retryLater = retryLater;
        this.http = http;
        this.passing = work.requestThreads("upstream-pass-through", config.passThroughRequests());
        this.refused = RelayMeter.UPSTREAM_PASS_THROUGH_REFUSED.counter(meters);
    }

    /** Answered on the server's event loop when refused, else once the upstream answered. */
    @Post(uri = "/api/{projectId}/{endpoint:(?!envelope/?$)[^/]+}/", consumes = MediaType.ALL, produces = MediaType.ALL)
    public CompletableFuture<MutableHttpResponse<byte[]>> passOn(@PathVariable String projectId,
                                                                 @PathVariable String endpoint,
                                                                 HttpRequest<?> request,
                                                                 @Nullable @Body InputStream body) {
        if (!config.enabled() || !projectId.matches("\\d+") || !endpoint.matches("[a-z_]+")) {
            throw new RelayError(HttpStatus.NOT_FOUND, "not found");
        }
        try {
            return CompletableFuture.supplyAsync(() -> exchange(projectId, endpoint, request,
                    body == null ? InputStream.nullInputStream() : body), passing);
        } catch (RejectedExecutionException e) {
            if (passing.isShutdown()) {
                throw retryLater.unavailable("the relay is stopping");
            }
            refused.increment();
            throw retryLater.unavailable("too many requests are being passed on to the upstream; retry later");
        }
    }

    /** One request passed on, on a pass-through thread: the body handed over as the client asks, then the answer. */
    private MutableHttpResponse<byte[]> exchange(String projectId, String endpoint, HttpRequest<?> request,
                                                 InputStream body) {
        URI target = URI.create(config.base() + "/api/" + projectId + "/" + endpoint + "/"
                + (request.getUri().getRawQuery() == null ? "" : "?" + request.getUri().getRawQuery()));
        PassThroughBody bodyOut = new PassThroughBody();
        java.net.http.HttpRequest.Builder upstream = java.net.http.HttpRequest.newBuilder(target)
                .timeout(config.requestTimeout().multipliedBy(12))
                .POST(java.net.http.HttpRequest.BodyPublishers.fromPublisher(bodyOut));
        request.getHeaders().forEach((name, values) -> {
            if (!NOT_PASSED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> upstream.header(name, value));
            }
        });
        upstream.header("X-Forwarded-For", ForwardedFor.of(request));
        java.net.http.HttpResponse<byte[]> answer;
        CompletableFuture<java.net.http.HttpResponse<byte[]>> exchange = http.sendAsync(upstream.build(),
                java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        try {
            bodyOut.send(body, exchange);
            answer = exchange.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof HttpTimeoutException) {
                throw new RelayError(HttpStatus.GATEWAY_TIMEOUT, "upstream request timed out");
            }
            throw new RelayError(HttpStatus.BAD_GATEWAY, "upstream unavailable", e.getCause().toString());
        } catch (InterruptedException e) {
            exchange.cancel(true);
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
