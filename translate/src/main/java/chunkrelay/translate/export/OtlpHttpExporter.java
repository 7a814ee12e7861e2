package chunkrelay.translate.export;

import chunkrelay.retry.Backoff;
import chunkrelay.retry.RetryAfter;
import chunkrelay.retry.Sleeper;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesPartialSuccess;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Sends serialized {@link ExportProfilesServiceRequest}s to {@code POST {endpoint}/v1development/profiles} with
 * the OTLP/HTTP delivery rules ({@link AnswerOutcome}): 429, 502, 503 and 504 and transport failures (refused
 * connections, timeouts, resets) are retried with exponential backoff and jitter, waiting at least what
 * {@code Retry-After} asks; every other status is a refusal for good, with the endpoint's message as its reason;
 * a 2xx is a delivery, and a filled {@code partial_success} in it is logged and counted but not retried (the
 * receiver has already decided). Retries stop at {@code maxAttempts} or when the next wait would overrun
 * {@code maxElapsed}, so a down target costs a bounded time per request; the caller keeps such a request for
 * replay. Every answer is counted by outcome ({@link ExportCounters#answers}).
 *
 * <p>Requests over {@code maxRequestBytes} are split by samples into parts that each fit
 * ({@link RequestSplitter}); parts are sent in order and the request counts as delivered only when every part
 * is. A later part's final failure leaves earlier parts delivered, so replaying such a request may duplicate
 * them. Thread-safe: one exporter serves all queue workers.
 */
public final class OtlpHttpExporter {
    /** Path of the profiles signal, appended to the configured endpoint. */
    public static final String PROFILES_PATH = "v1development/profiles";

    private static final System.Logger LOG = System.getLogger(OtlpHttpExporter.class.getName());
    private static final int MAX_RESPONSE_BYTES = 1024 * 1024;
    private static final int MAX_REASON_CHARS = 300;

    /** Response bodies announced larger than a response could sensibly be are discarded unread. */
    private static final HttpResponse.BodyHandler<byte[]> BOUNDED_BODY = info ->
            info.headers().firstValueAsLong("Content-Length").orElse(0) > MAX_RESPONSE_BYTES
                    ? HttpResponse.BodySubscribers.replacing(new byte[0])
                    : HttpResponse.BodySubscribers.ofByteArray();

    private final OtlpExportSettings settings;
    private final ExportCounters counters;
    private final Clock clock;
    private final Sleeper sleeper;
    /** Doubling from {@code initialBackoff} up to {@code maxBackoff}. */
    private final Backoff backoff;
    private final URI target;
    private final HttpClient client;

    /**
     * @param clock   reads the time for HTTP-date {@code Retry-After} values and the elapsed retry budget
     * @param sleeper waits between attempts
     * @param threads runs the HTTP client's steps of each exchange; its owner stops it
     */
    public OtlpHttpExporter(OtlpExportSettings settings, ExportCounters counters, Clock clock, Sleeper sleeper,
                            Executor threads) {
        this.settings = settings;
        this.counters = counters;
        this.clock = clock;
        this.sleeper = sleeper;
        this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff(), 2);
        this.target = profilesUri(settings.endpoint());
        this.client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                // plain http: no h2c upgrade dance with a request body; https negotiates h2 through ALPN
                .version("https".equalsIgnoreCase(target.getScheme())
                        ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(threads)
                .build();
    }

    /** {@code endpoint} with {@link #PROFILES_PATH} appended to its path, with or without a trailing slash. */
    public static URI profilesUri(URI endpoint) {
        String path = endpoint.getRawPath() == null ? "" : endpoint.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        String query = endpoint.getRawQuery() == null ? "" : "?" + endpoint.getRawQuery();
        return URI.create(endpoint.getScheme() + "://" + endpoint.getRawAuthority() + path + "/" + PROFILES_PATH
                + query);
    }

    public URI target() {
        return target;
    }

    public OtlpExportSettings settings() {
        return settings;
    }

    public ExportCounters counters() {
        return counters;
    }

    /**
     * Delivers one serialized request, retrying as described above; blocks for at most about
     * {@code maxElapsed} plus two request {@code timeout}s (response headers, then body) per part.
     *
     * @throws InterruptedException when interrupted while sending or waiting: the outcome is then unknown
     */
    public DeliveryResult export(byte[] request) throws InterruptedException {
        DeliveryResult result = request.length <= settings.maxRequestBytes()
                ? deliver(request, 1)
                : deliverInParts(request);
        if (result.delivered()) {
            counters.delivered(result);
        } else {
            counters.finalFailure(result.status());
        }
        return result;
    }

    private DeliveryResult deliverInParts(byte[] request) throws InterruptedException {
        RequestSplitter splitter;
        List<List<RequestSplitter.Slice>> plan;
        try {
            splitter = new RequestSplitter(ExportProfilesServiceRequest.parseFrom(request));
            plan = splitter.plan(settings.maxRequestBytes());
        } catch (InvalidProtocolBufferException e) {
            return unsendable("request of " + request.length + " bytes is over the limit and is not a valid"
                    + " ExportProfilesServiceRequest: " + e.getMessage());
        } catch (RequestSplitter.TooLargeException e) {
            return unsendable("request of " + request.length + " bytes cannot be split: " + e.getMessage());
        }
        if (plan.isEmpty()) {
            return unsendable("request of " + request.length + " bytes is over the limit and has no samples");
        }
        counters.split();
        LOG.log(Level.INFO, "Splitting an OTLP request of {0} bytes into {1} parts", request.length, plan.size());
        int attempts = 0;
        long rejected = 0;
        String message = "";
        DeliveryResult part = null;
        for (int i = 0; i < plan.size(); i++) {
            byte[] body;
            try {
                body = splitter.build(plan.get(i)).toByteArray();
            } catch (IllegalArgumentException e) {
                counters.answered(AnswerOutcome.REFUSED, "unsendable");
                return DeliveryResult.refused(attempts, plan.size(), DeliveryResult.NO_STATUS,
                        "request has an index outside its dictionary table: " + e.getMessage());
            }
            part = deliver(body, plan.size());
            attempts += part.attempts();
            if (!part.delivered()) {
                String reason = "part " + (i + 1) + " of " + plan.size() + ": " + part.reason();
                return part.refused() ? DeliveryResult.refused(attempts, plan.size(), part.status(), reason)
                        : DeliveryResult.gaveUp(attempts, plan.size(), part.status(), reason);
            }
            rejected += part.rejectedProfiles();
            message = message.isEmpty() ? part.partialSuccessMessage() : message;
        }
        return DeliveryResult.delivered(attempts, plan.size(), part.status(), rejected, message);
    }

    private DeliveryResult unsendable(String reason) {
        LOG.log(Level.WARNING, "OTLP request not sent: {0}", reason);
        counters.answered(AnswerOutcome.REFUSED, "unsendable");
        return DeliveryResult.refused(0, 0, DeliveryResult.NO_STATUS, reason);
    }

    /** One body (the whole request or one part) with the retry policy. */
    private DeliveryResult deliver(byte[] body, int parts) throws InterruptedException {
        HttpRequest request = httpRequest(encode(body));
        long start = clock.millis();
        for (int attempt = 1; ; attempt++) {
            counters.attempt();
            Attempt outcome = send(request);
            AnswerOutcome answer = AnswerOutcome.of(outcome.status());
            if (answer == AnswerOutcome.DELIVERED) {
                return accepted(outcome, attempt, parts);
            }
            counters.answered(answer, AnswerOutcome.reasonOf(outcome.status()));
            if (answer == AnswerOutcome.REFUSED) {
                LOG.log(Level.WARNING, "OTLP endpoint {0} refused the request for good: {1}", target,
                        outcome.reason());
                return DeliveryResult.refused(attempt, parts, outcome.status(), outcome.reason());
            }
            if (attempt >= settings.maxAttempts()) {
                return givenUp(attempt, parts, outcome, "no attempts left");
            }
            Duration wait = backoff.delay(attempt, outcome.retryAfter().orElse(Duration.ZERO));
            long elapsed = clock.millis() - start;
            if (elapsed + wait.toMillis() > settings.maxElapsed().toMillis()) {
                return givenUp(attempt, parts, outcome, "waiting " + wait.toMillis()
                        + " ms more would exceed the retry budget of " + settings.maxElapsed().toMillis() + " ms");
            }
            LOG.log(Level.DEBUG, "OTLP attempt {0} failed ({1}); retrying in {2} ms", attempt, outcome.reason(),
                    wait.toMillis());
            sleeper.sleep(wait);
            counters.retry();
        }
    }

    private DeliveryResult givenUp(int attempts, int parts, Attempt last, String why) {
        String reason = last.reason() + " (retryable; gave up after " + attempts + " attempts: " + why + ")";
        LOG.log(Level.WARNING, "OTLP delivery to {0} failed: {1}", target, reason);
        return DeliveryResult.gaveUp(attempts, parts, last.status(), reason);
    }

    private DeliveryResult accepted(Attempt outcome, int attempts, int parts) {
        ExportProfilesPartialSuccess partial = ExportProfilesPartialSuccess.getDefaultInstance();
        if (outcome.body().length > 0) {
            try {
                partial = ExportProfilesServiceResponse.parseFrom(outcome.body()).getPartialSuccess();
            } catch (InvalidProtocolBufferException e) {
                LOG.log(Level.WARNING, "OTLP endpoint answered {0} with a body that is not an"
                        + " ExportProfilesServiceResponse; counted as delivered", outcome.status());
            }
        }
        boolean partialSuccess = partial.getRejectedProfiles() > 0 || !partial.getErrorMessage().isEmpty();
        counters.answered(AnswerOutcome.DELIVERED, partialSuccess ? "partial_success" : "ok");
        if (partialSuccess) {
            LOG.log(Level.WARNING, "OTLP endpoint accepted the request partially: {0} profiles rejected: {1}",
                    partial.getRejectedProfiles(), partial.getErrorMessage());
        }
        return DeliveryResult.delivered(attempts, parts, outcome.status(), partial.getRejectedProfiles(),
                partial.getErrorMessage());
    }

    private HttpRequest httpRequest(byte[] encoded) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(target)
                .timeout(settings.timeout())
                .header("Content-Type", "application/x-protobuf")
                .POST(HttpRequest.BodyPublishers.ofByteArray(encoded));
        if (settings.compression() == Compression.GZIP) {
            builder.header("Content-Encoding", "gzip");
        }
        settings.headers().forEach(builder::header);
        return builder.build();
    }

    private byte[] encode(byte[] body) {
        if (settings.compression() == Compression.NONE) {
            return body;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length / 4));
        try (GZIPOutputStream gzip = new GZIPOutputStream(out, 64 * 1024)) {
            gzip.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory failed", e);
        }
        return out.toByteArray();
    }

    /** What one HTTP attempt came back with. {@code status} is 0 when there was no response. */
    private record Attempt(int status, String reason, byte[] body, Optional<Duration> retryAfter) {
    }

    private Attempt send(HttpRequest request) throws InterruptedException {
        // the request timeout ends at the response headers; the whole exchange gets one more timeout for the body
        long deadlineMillis = 2 * settings.timeout().toMillis();
        CompletableFuture<HttpResponse<byte[]>> exchange = client.sendAsync(request, BOUNDED_BODY);
        HttpResponse<byte[]> response;
        try {
            response = exchange.get(deadlineMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            exchange.cancel(true);
            throw e;
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return transportFailure("HttpTimeoutException: no complete response within " + deadlineMillis + " ms");
        } catch (ExecutionException e) {
            // refused, reset, timed out, unresolvable: the request may not have been processed; retry
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return transportFailure(cause instanceof IOException io ? describe(io) : cause.toString());
        }
        int status = response.statusCode();
        byte[] body = decodeResponse(response, response.body());
        Optional<Duration> retryAfter = AnswerOutcome.of(status) == AnswerOutcome.RETRIED
                ? RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), clock.instant())
                : Optional.empty();
        String reason = status >= 200 && status < 300 ? "" : "HTTP " + status + describe(response, body);
        return new Attempt(status, reason, body, retryAfter);
    }

    private static Attempt transportFailure(String reason) {
        return new Attempt(DeliveryResult.NO_STATUS, reason, new byte[0], Optional.empty());
    }

    private static byte[] decodeResponse(HttpResponse<?> response, byte[] body) {
        if (body.length == 0 || !response.headers().firstValue("Content-Encoding").orElse("")
                .equalsIgnoreCase("gzip")) {
            return body;
        }
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return in.readNBytes(MAX_RESPONSE_BYTES);
        } catch (IOException e) {
            return new byte[0];
        }
    }

    /** The JDK client often wraps the telling exception (e.g. "Connection refused") in a message-less one. */
    private static String describe(IOException e) {
        String message = e.getMessage();
        if (message == null && e.getCause() != null) {
            message = e.getCause().getMessage();
        }
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /** The error text of a response: google.rpc.Status.message (field 2) for protobuf bodies, else the text. */
    private static String describe(HttpResponse<?> response, byte[] body) {
        if (body.length == 0) {
            return "";
        }
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        String text;
        if (contentType.contains("protobuf")) {
            try {
                List<com.google.protobuf.ByteString> messages =
                        UnknownFieldSet.parseFrom(body).getField(2).getLengthDelimitedList();
                text = messages.isEmpty() ? "" : messages.get(0).toStringUtf8();
            } catch (InvalidProtocolBufferException e) {
                text = "";
            }
        } else {
            text = new String(body, 0, Math.min(body.length, MAX_REASON_CHARS * 4), StandardCharsets.UTF_8);
        }
        text = text.strip();
        if (text.length() > MAX_REASON_CHARS) {
            text = text.substring(0, MAX_REASON_CHARS) + "...";
        }
        return text.isEmpty() ? "" : ": " + text;
    }
}
