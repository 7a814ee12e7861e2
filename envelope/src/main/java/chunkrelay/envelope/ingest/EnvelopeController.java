package chunkrelay.envelope.ingest;

import chunkrelay.envelope.auth.ProjectKey;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.auth.RequestAuthenticator;
import chunkrelay.envelope.auth.SentryAuth;
import chunkrelay.envelope.disk.DiskGuard;
import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.envelope.upstream.ForwardedFor;
import chunkrelay.storage.ProjectIds;

import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.ServerHttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Sentry's envelope endpoint, checked in Relay's order: Content-Encoding (415), project id (400), auth (401,
 * then 400 for a malformed key or a protocol version above 7), the project's keys (401), then the body.
 * Content-Type is not checked; a full worker queue or a disk below its minimum ({@link DiskGuard}) is a 503. The
 * checks run on the event loop as soon as the headers are in; the body is read by the event loop into the memory
 * budget ({@link BodyCollector}) and only a complete body is handed to a worker ({@link IngestWorkers}) to be decoded
 * and ingested, so a slow client holds no thread. Every answer, refusals included, goes out once the body has been
 * read to its end.
 */
@Controller
public class EnvelopeController {
    private final RequestAuthenticator authenticator;
    private final ProjectRegistry projects;
    private final ContentDecoding decoding;
    private final EnvelopeIngest ingest;
    private final ChunkMemoryBudget budget;
    private final IngestWorkers workers;
    private final RelayLimits limits;
    private final MeterRegistry meters;
    private final Clock clock;
    private final DiskGuard diskGuard;

    public EnvelopeController(RequestAuthenticator authenticator, ProjectRegistry projects, ContentDecoding decoding,
                              EnvelopeIngest ingest, ChunkMemoryBudget budget, IngestWorkers workers,
                              RelayLimits limits, MeterRegistry meters,
                              Clock clock, DiskGuard diskGuard) {
        this.authenticator = authenticator;
        this.projects = projects;
        this.decoding = decoding;
        this.ingest = ingest;
        this.budget = budget;
        this.workers = workers;
        this.limits = limits;
        this.meters = meters;
        this.clock = clock;
        this.diskGuard = diskGuard;
    }

    @Post(uri = "/api/{projectId}/envelope/", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
    public CompletableFuture<HttpResponse<Map<String, String>>> envelope(@PathVariable String projectId,
                                                                          HttpRequest<?> request) {
        Instant receivedAt = clock.instant();
        ContentDecoding.Encoding encoding = null;
        EnvelopeIngest.Sender sender = null;
        RelayError refusal = null;
        try {
            encoding = ContentDecoding.encodingOf(request.getHeaders().get(HttpHeaders.CONTENT_ENCODING));
            long project = ProjectIds.parse(projectId).orElseThrow(() ->
                    new RelayError(HttpStatus.BAD_REQUEST, "bad project path parameter",
                            "'" + projectId + "' is not a project id"));
            Optional<SentryAuth> auth = authenticator.authenticate(request);
            sender = new EnvelopeIngest.Sender(project, authorizedKey(auth, project), requestOrigin(request),
                    receivedAt, auth.map(SentryAuth::client).orElse(null),
                    request.getHeaders().get(HttpHeaders.USER_AGENT), ForwardedFor.of(request));
            if (request.getContentLength() > limits.maxEnvelopeBytes()) {
                refusal = RelayError.bodyTooLarge();
            } else if (!workers.hasRoom()) {
                refusal = workers.busy();
            } else {
                refusal = diskGuard.refusal().orElse(null);
            }
        } catch (RelayError e) {
            refusal = e;
        }
        BodyCollector collector = new BodyCollector(budget.openForBody(), limits.maxEnvelopeBytes(), refusal,
                limits.readTimeout(), workers.timer());
        ((ServerHttpRequest<?>) request).byteBody().toByteArrayPublisher().subscribe(collector);
        ContentDecoding.Encoding bodyEncoding = encoding;
        EnvelopeIngest.Sender bodySender = sender;
        return collector.result()
                .whenComplete((body, failure) -> countIncomplete(failure))
                .thenCompose(body -> workers.submit(() -> {
                    try (body) {
                        String eventId = ingest.ingest(bodySender, decoding.decode(bodyEncoding, body.stream()));
                        return HttpResponse.ok(eventId == null ? Map.<String, String>of() : Map.of("id", eventId));
                    }
                }));
    }

    /** The request's public key, authorized for the project; null when only the envelope's dsn can say. */
    private String authorizedKey(Optional<SentryAuth> requestAuth, long project) {
        return requestAuth.map(auth -> {
            String key = ProjectKey.withoutFlags(auth.publicKey());
            if (key == null) {
                throw new RelayError(HttpStatus.BAD_REQUEST, "bad sentry DSN public key", "invalid project key");
            }
            if (auth.version() > SentryAuth.LATEST_VERSION) {
                throw new RelayError(HttpStatus.BAD_REQUEST, "unsupported protocol version (" + auth.version() + ")");
            }
            projects.authorize(project, key);
            return key;
        }).orElse(null);
    }

    /** A body that never completed: the client went away, or sent nothing for {@code relay.limits.read-timeout}. */
    private void countIncomplete(Throwable failure) {
        Throwable cause = failure == null ? null : unwrap(failure);
        if (cause != null && (!(cause instanceof RelayError refused)
                || refused.status() == HttpStatus.REQUEST_TIMEOUT)) {
            RelayMeter.REQUEST_BODIES_INCOMPLETE.counter(meters).increment();
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** Origin, or else Referer, when it is an http(s) URL. */
    private static String requestOrigin(HttpRequest<?> request) {
        for (String header : new String[] {HttpHeaders.ORIGIN, HttpHeaders.REFERER}) {
            String value = request.getHeaders().get(header);
            if (value != null) {
                String origin = EnvelopeHeaders.normalizeUrl(value).orElse(null);
                if (origin != null) {
                    return origin;
                }
            }
        }
        return null;
    }
}
