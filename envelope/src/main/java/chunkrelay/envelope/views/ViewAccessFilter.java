package chunkrelay.envelope.views;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RelayErrorHandler;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Who may look at archived profiles. The envelope endpoint is public by design (DSN keys are public); the views
 * expose profile data, so: off ({@code relay.views.enabled: false}) they answer 404; with {@code relay.views.token}
 * every view request needs {@code Authorization: Bearer <token>} (401); without a token only clients on the
 * loopback interface get an answer (403), and only when they name the relay by a loopback {@code Host}, so that a
 * web page on another site cannot reach a developer's relay through DNS rebinding. The page itself holds no data:
 * in token mode it is served without the token and asks for it.
 */
@ServerFilter(patterns = {"/", "/api/v1/**"})
public class ViewAccessFilter {
    private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]");

    private final ViewsConfig config;

    public ViewAccessFilter(ViewsConfig config) {
        this.config = config;
    }

    @RequestFilter
    @Nullable
    public HttpResponse<?> check(HttpRequest<?> request) {
        if (!config.enabled()) {
            return refuse(HttpStatus.NOT_FOUND, "the views are off (relay.views.enabled: false)");
        }
        boolean page = !request.getPath().startsWith("/api/");
        if (config.tokenMode()) {
            if (page || bearerMatches(request)) {
                return null;
            }
            return HttpResponse.<Object>status(HttpStatus.UNAUTHORIZED)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                    .body(body("the views need Authorization: Bearer <relay.views.token>"));
        }
        InetSocketAddress remote = request.getRemoteAddress();
        if (remote == null || remote.getAddress() == null || !remote.getAddress().isLoopbackAddress()) {
            return refuse(HttpStatus.FORBIDDEN, "without relay.views.token the views answer loopback clients only");
        }
        if (!LOOPBACK_HOSTS.contains(hostName(request.getHeaders().get(HttpHeaders.HOST)))) {
            return refuse(HttpStatus.FORBIDDEN, "without relay.views.token the views answer only a Host of localhost,"
                    + " 127.0.0.1 or [::1]");
        }
        return null;
    }

    private boolean bearerMatches(HttpRequest<?> request) {
        String authorization = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, config.token().getBytes(StandardCharsets.UTF_8));
    }

    /** The host of a Host header, without its port, lowercase; "" when there is none. */
    static String hostName(String host) {
        if (host == null) {
            return "";
        }
        String name = host.trim().toLowerCase(Locale.ROOT);
        if (name.startsWith("[")) {
            int end = name.indexOf(']');
            return end < 0 ? name : name.substring(0, end + 1);
        }
        int colon = name.indexOf(':');
        return colon < 0 ? name : name.substring(0, colon);
    }

    private static HttpResponse<?> refuse(HttpStatus status, String detail) {
        return RelayErrorHandler.response(new RelayError(status, detail));
    }

    private static Map<String, Object> body(String detail) {
        return Map.of("detail", detail);
    }
}
