package chunkrelay.envelope.upstream;

import io.micronaut.http.HttpRequest;

/**
 * The client chain as Relay builds it for {@code X-Forwarded-For}: the first of {@code CF-Connecting-IP},
 * {@code X-Vercel-Forwarded-For}, {@code X-Sentry-Forwarded-For} and {@code X-Forwarded-For} that is set, then the
 * address of the peer that sent the request.
 */
public final class ForwardedFor {
    private static final String[] CHAIN_HEADERS = {"CF-Connecting-IP", "X-Vercel-Forwarded-For",
            "X-Sentry-Forwarded-For", "X-Forwarded-For"};

    private ForwardedFor() {
    }

    public static String of(HttpRequest<?> request) {
        String peer = request.getRemoteAddress().getAddress() == null ? request.getRemoteAddress().getHostString()
                : request.getRemoteAddress().getAddress().getHostAddress();
        for (String header : CHAIN_HEADERS) {
            String chain = request.getHeaders().get(header);
            if (chain != null && !chain.isBlank()) {
                return chain.trim() + ", " + peer;
            }
        }
        return peer;
    }
}
