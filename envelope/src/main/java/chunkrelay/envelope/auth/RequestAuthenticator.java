package chunkrelay.envelope.auth;

import chunkrelay.envelope.errors.RelayError;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import jakarta.inject.Singleton;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the one auth source of a request, in Relay's order: {@code X-Sentry-Auth}, {@code Authorization: Sentry},
 * {@code Authorization: Basic}, the query string. Two sources: 401. None: empty, and the caller falls back to the
 * envelope header's {@code dsn}.
 */
@Singleton
public class RequestAuthenticator {

    public Optional<SentryAuth> authenticate(HttpRequest<?> request) {
        SentryAuth auth = null;
        String sentryAuth = sentryHeader(request, "X-Sentry-Auth");
        if (sentryAuth != null) {
            auth = parseHeader(sentryAuth);
        }
        String authorization = sentryHeader(request, HttpHeaders.AUTHORIZATION);
        if (authorization != null) {
            auth = single(auth, parseHeader(authorization));
        }
        Optional<SentryAuth> basic = basicAuth(request.getHeaders().get(HttpHeaders.AUTHORIZATION));
        if (basic.isPresent()) {
            auth = single(auth, basic.get());
        }
        String query = request.getUri().getRawQuery();
        if (query != null && query.contains("sentry_")) {
            SentryAuth fromQuery;
            try {
                fromQuery = SentryAuth.fromQuery(query);
            } catch (SentryAuth.Invalid e) {
                throw RelayError.badAuth(e.getMessage());
            }
            auth = single(auth, fromQuery);
        }
        return Optional.ofNullable(auth);
    }

    private static SentryAuth single(SentryAuth earlier, SentryAuth next) {
        if (earlier != null) {
            throw new RelayError(io.micronaut.http.HttpStatus.UNAUTHORIZED, "multiple authorization payloads detected");
        }
        return next;
    }

    /** A header value is only a Sentry auth source when it starts with "sentry " (any case). */
    private static String sentryHeader(HttpRequest<?> request, String name) {
        String value = request.getHeaders().get(name);
        if (value == null || value.length() < 7 || !value.substring(0, 7).equalsIgnoreCase("sentry ")) {
            return null;
        }
        return value;
    }

    private static SentryAuth parseHeader(String value) {
        try {
            return SentryAuth.fromHeader(value);
        } catch (SentryAuth.Invalid e) {
            throw RelayError.badAuth(e.getMessage());
        }
    }

    /** {@code Basic base64(public_key:secret)}; anything that does not decode is not an auth source. */
    private static Optional<SentryAuth> basicAuth(String value) {
        if (value == null || value.length() < 6 || !value.substring(0, 6).equalsIgnoreCase("basic ")) {
            return Optional.empty();
        }
        try {
            byte[] bytes = Base64.getDecoder().decode(value.substring(6));
            String decoded = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            int colon = decoded.indexOf(':');
            if (colon < 0) {
                return Optional.empty();
            }
            return Optional.of(SentryAuth.fromPairs(List.of(Map.entry("sentry_key", decoded.substring(0, colon)))));
        } catch (IllegalArgumentException | CharacterCodingException | SentryAuth.Invalid e) {
            return Optional.empty();
        }
    }
}
