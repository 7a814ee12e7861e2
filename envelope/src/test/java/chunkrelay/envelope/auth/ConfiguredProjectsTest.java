package chunkrelay.envelope.auth;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static chunkrelay.envelope.testing.Envelopes.KEY;
import static chunkrelay.envelope.testing.Envelopes.OTHER_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** With projects configured, only their keys may send, and only to them. */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "relay.projects.1.keys[0]", value = KEY)
@Property(name = "relay.projects.7.keys[0]", value = OTHER_KEY)
class ConfiguredProjectsTest {
    @Inject
    EmbeddedServer server;

    @Inject
    ProjectRegistry projects;

    RelayClient client;

    @BeforeEach
    void client() {
        client = new RelayClient(server.getURI());
    }

    @Test
    void readsProjectsFromConfiguration() {
        assertFalse(projects.openMode());
        assertEquals(2, projects.projectIds().size());
    }

    @Test
    void acceptsConfiguredKeyForItsProject() {
        assertEquals(200, client.post("/api/1/envelope/?sentry_key=" + KEY, Envelopes.withChunk()).status());
        assertEquals(200, client.post("/api/7/envelope/?sentry_key=" + OTHER_KEY, Envelopes.withChunk()).status());
    }

    @Test
    void refusesUnknownProjectWith401() {
        RelayClient.Answer answer = client.post("/api/2/envelope/?sentry_key=" + KEY, Envelopes.withChunk());
        assertEquals(401, answer.status());
        assertEquals("unknown project", answer.detail());
    }

    @Test
    void refusesKeyOfAnotherProjectWith401() {
        RelayClient.Answer answer = client.post("/api/1/envelope/?sentry_key=" + OTHER_KEY, Envelopes.withChunk());
        assertEquals(401, answer.status());
        assertEquals("unknown public key", answer.detail());
    }

    @Test
    void refusesUnknownKeyFromEnvelopeDsnWith401() {
        String stranger = "ffffffffffffffffffffffffffffffff";
        assertEquals(401, client.post("/api/1/envelope/",
                Envelopes.withChunk(Envelopes.headerWithDsn(stranger, 1))).status());
        assertEquals(200, client.post("/api/1/envelope/",
                Envelopes.withChunk(Envelopes.headerWithDsn(KEY, 1))).status());
    }
}
