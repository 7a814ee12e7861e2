package chunkrelay.envelope.errors;

import chunkrelay.envelope.testing.RelayClient;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Answers Micronaut gives by itself (no route, wrong method) come in Relay's error shape too. */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class FrameworkErrorsTest {
    @Inject
    EmbeddedServer server;

    @Test
    void anUnknownPathIsAnswered404InRelaysShape() {
        RelayClient.Answer answer = new RelayClient(server.getURI()).post("/no/such/route", new byte[] {1, 2, 3});
        assertEquals(404, answer.status());
        assertEquals("not found", answer.detail(), answer.raw());
        assertFalse(answer.raw().contains("_links"), answer.raw());
    }

    @Test
    void aWrongMethodOnTheEnvelopeRouteIsAnswered405InRelaysShape() {
        RelayClient.Answer response = new RelayClient(server.getURI()).get("/api/1/envelope/");
        assertEquals(405, response.status());
        assertTrue(response.raw().startsWith("{\"detail\":\"method not allowed\""), response.raw());
    }
}
