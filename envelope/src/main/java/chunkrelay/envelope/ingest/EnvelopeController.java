package chunkrelay.envelope.ingest;

import chunkrelay.envelope.auth.ProjectIds;
import chunkrelay.envelope.auth.ProjectKey;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.auth.RequestAuthenticator;
import chunkrelay.envelope.auth.SentryAuth;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Map;

/**
 * Sentry's envelope endpoint, checked in Relay's order: Content-Encoding (415), project id (400), auth (401,
 * then 400 for a malformed key or a protocol version above 7), the project's keys (401), then the body, read as a
 * stream on a blocking thread. Content-Type is not checked.
 */
@Controller
public class EnvelopeController {
    private static final long EARLY_ERROR_DRAIN_BYTES = 16L * 1024 * 1024;

    private final RequestAuthenticator authenticator;
    private final ProjectRegistry projects;
    private final ContentDecoding decoding;
    private final EnvelopeIngest ingest;

    public EnvelopeController(RequestAuthenticator authenticator, ProjectRegistry projects, ContentDecoding decoding,
                              EnvelopeIngest ingest) {
        this.authenticator = authenticator;
        this.projects = projects;
        this.decoding = decoding;
        this.ingest = ingest;
    }

    @Post(uri = "/api/{projectId}/envelope/", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
    @ExecuteOn(TaskExecutors.BLOCKING)
    public HttpResponse<Map<String, String>> envelope(@PathVariable String projectId, HttpRequest<?> request,
                                                     @Nullable @Body InputStream body) throws IOException {
        Instant receivedAt = Instant.now();
        try (InputStream wire = body == null ? InputStream.nullInputStream() : body) {
            return envelope(projectId, request, wire, receivedAt);
        }
    }

    private HttpResponse<Map<String, String>> envelope(String projectId, HttpRequest<?> request, InputStream wire,
                                                      Instant receivedAt) {
        long project;
        String publicKey;
        ContentDecoding.Encoding encoding;
        try {
            encoding =
                    ContentDecoding.encodingOf(request.getHeaders().get(HttpHeaders.CONTENT_ENCODING));
            project = ProjectIds.parse(projectId).orElseThrow(() ->
                    new RelayError(HttpStatus.BAD_REQUEST, "bad project path parameter",
                            "'" + projectId + "' is not a project id"));
            publicKey = authenticator.authenticate(request).map(auth -> {
                String key = ProjectKey.withoutFlags(auth.publicKey());
                if (key == null) {
                    throw new RelayError(HttpStatus.BAD_REQUEST, "bad sentry DSN public key", "invalid project key");
                }
                if (auth.version() > SentryAuth.LATEST_VERSION) {
                    throw new RelayError(HttpStatus.BAD_REQUEST,
                            "unsupported protocol version (" + auth.version() + ")");
                }
                projects.authorize(project, key);
                return key;
            }).orElse(null);
        } catch (RelayError e) {
            skipUnread(wire);
            throw e;
        }
        String eventId = ingest.ingest(
                new EnvelopeIngest.Sender(project, publicKey, requestOrigin(request), receivedAt),
                decoding.decode(encoding, wire));
        return HttpResponse.ok(eventId == null ? Map.of() : Map.of("id", eventId));
    }

    /**
     * Reads what is left of a body refused before it was read (up to {@link #EARLY_ERROR_DRAIN_BYTES}): closing a
     * connection with unread bytes resets it, and a client still sending may then lose the answer. Larger bodies
     * are left to the connection close.
     */
    private static void skipUnread(InputStream wire) {
        try {
            long skipped = 0;
            byte[] scratch = new byte[16 * 1024];
            int n;
            while (skipped < EARLY_ERROR_DRAIN_BYTES && (n = wire.read(scratch)) >= 0) {
                skipped += n;
            }
        } catch (IOException e) {
            // the answer is the refusal already decided; a broken body changes nothing
        }
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
