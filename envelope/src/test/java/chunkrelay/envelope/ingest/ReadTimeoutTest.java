package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.PrometheusScrape;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client that stops sending its body is answered 408, cut off after {@code relay.limits.read-timeout}, counted. */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "relay.limits.read-timeout", value = "3s")
class ReadTimeoutTest {
    @Inject
    EmbeddedServer server;

    @Test
    void aClientThatStopsSendingIsAnswered408AfterTheReadTimeoutAndCounted() throws Exception {
        String incomplete = "relay_request_bodies_incomplete_total";
        String answer;
        long waited;
        try (Socket socket = SlowClientsTest.openAnnouncing(server.getPort(), 1000)) {
            socket.getOutputStream().write("{}\n".getBytes(StandardCharsets.UTF_8));
            socket.setSoTimeout(30_000);
            long start = System.nanoTime();
            InputStream in = socket.getInputStream();
            answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            waited = (System.nanoTime() - start) / 1_000_000;
        }
        assertTrue(answer.startsWith("HTTP/1.1 408"), answer);
        assertTrue(answer.contains("\"detail\":\"failed to read request body\""), answer);
        assertTrue(waited >= 2500, "cut off after " + waited + " ms, before the 3 s read timeout");
        assertEquals(1.0, PrometheusScrape.of(server.getURI()).value(incomplete));
    }
}
