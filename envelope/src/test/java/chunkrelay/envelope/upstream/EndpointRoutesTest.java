package chunkrelay.envelope.upstream;

import chunkrelay.envelope.ingest.EnvelopeController;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteMatch;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The envelope endpoint has exactly one route: the pass-through route for other endpoints must not match it too,
 * or which of the two answers depends on the order the routes are loaded in (the packaged jar's order sent
 * envelopes to the pass-through, which answers 404 without an upstream).
 */
@MicronautTest
class EndpointRoutesTest {
    @Inject
    Router router;

    @Test
    void onlyTheEnvelopeControllerMatchesTheEnvelopePathWithOrWithoutTheTrailingSlash() {
        for (String path : List.of("/api/1/envelope/", "/api/1/envelope")) {
            List<UriRouteMatch<Object, Object>> matches = router.find(HttpMethod.POST, path, HttpRequest.POST(path, ""))
                    .toList();
            assertEquals(List.of(EnvelopeController.class), matches.stream()
                    .map(m -> (Object) m.getDeclaringType()).toList(), path);
        }
    }

    @Test
    void theOtherEndpointsGoToThePassThrough() {
        for (String path : List.of("/api/1/store/", "/api/1/security/", "/api/1/minidump/", "/api/1/envelopes/")) {
            List<UriRouteMatch<Object, Object>> matches = router.find(HttpMethod.POST, path, HttpRequest.POST(path, ""))
                    .toList();
            assertEquals(List.of(UpstreamPassThroughController.class), matches.stream()
                    .map(m -> (Object) m.getDeclaringType()).toList(), path);
        }
    }
}
