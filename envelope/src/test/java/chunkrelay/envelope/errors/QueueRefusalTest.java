package chunkrelay.envelope.errors;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every "failed to queue envelope" answer has one shape: 503, Relay's body with the reason as its one cause,
 * {@code Retry-After} and the connection closed.
 */
class QueueRefusalTest {

    @Test
    void aRefusedEnvelopeIsAnswered503WithItsReasonAndRetryAfter() {
        HttpResponse<Map<String, Object>> answer = RelayErrorHandler.response(
                RelayError.cannotQueue("the relay is busy; retry later", 7));

        assertEquals(503, answer.code());
        assertEquals(Map.of("detail", "failed to queue envelope", "causes", List.of("the relay is busy; retry later")),
                answer.body());
        assertEquals("7", answer.getHeaders().get("Retry-After"));
        assertEquals("close", answer.getHeaders().get("Connection"));
    }

    @Test
    void aRefusalWithoutAReasonHasNoCauses() {
        HttpResponse<Map<String, Object>> answer = RelayErrorHandler.response(RelayError.cannotQueue(null, 5));

        assertEquals(503, answer.code());
        assertEquals(Map.of("detail", "failed to queue envelope"), answer.body());
        assertEquals("5", answer.getHeaders().get("Retry-After"));
    }

    @Test
    void runningOutOfMemoryIsAnsweredAsARefusalToRetryAfterTheConfiguredSeconds() {
        HttpResponse<Map<String, Object>> answer = new OutOfMemoryHandler(new SimpleMeterRegistry(),
                new RetryLater(Duration.ofSeconds(5)))
                .handle(HttpRequest.POST("/api/1/envelope/", ""), new OutOfMemoryError("test"));

        assertEquals(503, answer.code());
        assertEquals(Map.of("detail", "failed to queue envelope",
                "causes", List.of("the relay ran out of memory; retry later")), answer.body());
        assertEquals("5", answer.getHeaders().get("Retry-After"));
        assertEquals("close", answer.getHeaders().get("Connection"));
    }
}
