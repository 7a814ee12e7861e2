package chunkrelay.envelope.auth;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.EVENT_ID;
import static chunkrelay.envelope.testing.Envelopes.KEY;
import static chunkrelay.envelope.testing.Envelopes.OTHER_KEY;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Auth sources and their failures, route and response shapes, in open mode (no projects configured). */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class EndpointAuthTest {
    @Inject
    EmbeddedServer server;

    RelayClient client;

    @BeforeEach
    void client() {
        client = new RelayClient(server.getURI());
    }

    private static void assertAnswer(int status, String detail, RelayClient.Answer answer) {
        assertEquals(status, answer.status(), answer.raw());
        assertEquals(detail, answer.detail(), answer.raw());
    }

    @Test
    void acceptsXSentryAuthAndAnswersTheEventId() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth", AUTH);
        assertEquals(200, answer.status(), answer.raw());
        assertEquals("{\"id\":\"" + EVENT_ID + "\"}", answer.raw());
    }

    @Test
    void acceptsXSentryAuthWithSpacesAndAnyCasePrefix() {
        assertEquals(200, client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth",
                "SENTRY sentry_key=" + KEY + ", sentry_version=7").status());
    }

    @Test
    void acceptsAuthorizationSentry() {
        assertEquals(200, client.post(PATH, Envelopes.withChunk(), "Authorization", AUTH).status());
    }

    @Test
    void acceptsAuthorizationBasic() {
        String basic = Base64.getEncoder().encodeToString((KEY + ":secret").getBytes(StandardCharsets.UTF_8));
        assertEquals(200, client.post(PATH, Envelopes.withChunk(), "Authorization", "Basic " + basic).status());
    }

    @Test
    void acceptsSentryKeyQuery() {
        assertEquals(200, client.post(PATH + "?sentry_version=7&sentry_key=" + KEY, Envelopes.withChunk()).status());
    }

    @Test
    void acceptsKeyWithFlagsAfterADot() {
        assertEquals(200, client.post(PATH + "?sentry_key=" + KEY + ".no-cache", Envelopes.withChunk()).status());
    }

    @Test
    void acceptsDsnOfTheEnvelopeHeaderWithoutRequestAuth() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.withChunk(Envelopes.headerWithDsn(KEY, 1)));
        assertEquals(200, answer.status(), answer.raw());
        assertEquals(EVENT_ID, answer.body().path("id").asText());
    }

    @Test
    void answersEmptyObjectWithoutEventId() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.bytes("{}\n{\"type\":\"session\"}\n{}"), "X-Sentry-Auth", AUTH);
        assertEquals(200, answer.status());
        assertEquals("{}", answer.raw());
    }

    @Test
    void acceptsHyphenatedEventIdAndAnswersItAsHex() {
        RelayClient.Answer answer = client.post(PATH,
                Envelopes.bytes("{\"event_id\":\"9EC79C33-EC99-42AB-8353-589FCB2E04DC\"}"), "X-Sentry-Auth", AUTH);
        assertEquals(EVENT_ID, answer.body().path("id").asText(), answer.raw());
    }

    @Test
    void refusesRequestWithoutAnyAuthWith401() {
        assertAnswer(401, "bad envelope authentication header", client.post(PATH, Envelopes.withChunk()));
    }

    @Test
    void refusesEnvelopeDsnThatIsNotAFullDsnWith401() {
        assertAnswer(401, "bad envelope authentication header", client.post(PATH,
                Envelopes.withChunk("{\"dsn\":\"https://relay.example/1\"}")));
    }

    @Test
    void checksOtherHeaderFieldsAfterTheEnvelopeDsnWith400() {
        assertAnswer(400, "invalid event envelope", client.post(PATH, Envelopes.withChunk(
                "{\"event_id\":\"nope\",\"dsn\":\"https://" + KEY + "@relay.example/1\"}")));
    }

    @Test
    void refusesEmptyBodyWithoutAuthWith401() {
        assertEquals(401, client.post(PATH, new byte[0]).status());
    }

    @Test
    void refusesTwoAuthSourcesWith401() {
        assertAnswer(401, "multiple authorization payloads detected",
                client.post(PATH + "?sentry_key=" + KEY, Envelopes.withChunk(), "X-Sentry-Auth", AUTH));
        assertAnswer(401, "multiple authorization payloads detected",
                client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth", AUTH, "Authorization", AUTH));
    }

    @Test
    void refusesAuthHeaderWithoutKeyWith401() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth", "Sentry sentry_version=7");
        assertAnswer(401, "bad x-sentry-auth header", answer);
        assertEquals("[\"missing public key in auth header\"]", answer.causes());
    }

    @Test
    void refusesUnparseableVersionWith401() {
        assertAnswer(401, "bad x-sentry-auth header", client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth",
                "Sentry sentry_key=" + KEY + ",sentry_version=seven"));
    }

    @Test
    void refusesVersionAboveSevenWith400() {
        assertAnswer(400, "unsupported protocol version (8)", client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth",
                "Sentry sentry_key=" + KEY + ",sentry_version=8"));
    }

    @Test
    void refusesMalformedKeyWith400() {
        assertAnswer(400, "bad sentry DSN public key",
                client.post(PATH + "?sentry_key=tooshort", Envelopes.withChunk()));
        assertAnswer(400, "bad sentry DSN public key",
                client.post(PATH + "?sentry_key=" + KEY + "x", Envelopes.withChunk()));
    }

    @Test
    void refusesEnvelopeDsnWithOtherProjectWith400() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.withChunk(Envelopes.headerWithDsn(KEY, 2)),
                "X-Sentry-Auth", AUTH);
        assertAnswer(400, "invalid event envelope", answer);
        assertEquals("[\"project id header mismatch between envelope and request\"]", answer.causes());
    }

    @Test
    void refusesEnvelopeDsnWithOtherKeyWith400() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.withChunk(Envelopes.headerWithDsn(OTHER_KEY, 1)),
                "X-Sentry-Auth", AUTH);
        assertAnswer(400, "invalid event envelope", answer);
        assertEquals("[\"public key header mismatch between envelope and request\"]", answer.causes());
    }

    @Test
    void refusesEnvelopeOriginDifferentFromRequestOrigin() {
        RelayClient.Answer answer = client.post(PATH,
                Envelopes.bytes("{\"origin\":\"http://localhost/\"}"), "X-Sentry-Auth", AUTH,
                "Origin", "http://elsewhere.example");
        assertEquals("[\"origin header mismatch between envelope and request\"]", answer.causes(), answer.status() + answer.raw());
        assertEquals(200, client.post(PATH, Envelopes.bytes("{\"origin\":\"http://localhost/\"}"),
                "X-Sentry-Auth", AUTH, "Origin", "http://LOCALHOST").status());
    }

    @Test
    void refusesNonNumericProjectIdWith400() {
        assertAnswer(400, "bad project path parameter",
                client.post("/api/abc/envelope/", Envelopes.withChunk(), "X-Sentry-Auth", AUTH));
        assertAnswer(400, "bad project path parameter",
                client.post("/api/-1/envelope/", Envelopes.withChunk(), "X-Sentry-Auth", AUTH));
    }

    @Test
    void refusesEmptyBodyWith400() {
        assertAnswer(400, "empty request body", client.post(PATH, new byte[0], "X-Sentry-Auth", AUTH));
    }

    @Test
    void acceptsPathWithoutTrailingSlashToo() {
        assertEquals(200, client.post("/api/1/envelope", Envelopes.withChunk(), "X-Sentry-Auth", AUTH).status());
    }

    @Test
    void answersCorsPreflightForBrowserSdks() {
        RelayClient.Answer response = client.request("OPTIONS", PATH, "Origin", "https://app.example",
                "Access-Control-Request-Method", "POST",
                "Access-Control-Request-Headers", "x-sentry-auth,content-type");
        assertEquals(200, response.status());
        assertEquals("https://app.example", response.header("Access-Control-Allow-Origin"));
    }

    @Test
    void ignoresContentType() {
        for (String type : new String[] {"application/x-sentry-envelope", "text/plain;charset=UTF-8",
                "application/json", "image/png"}) {
            assertEquals(200, client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth", AUTH,
                    "Content-Type", type).status(), type);
        }
    }

    @Test
    void reportsWireFormatErrorsWithRelaysWording() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.bytes(Envelopes.header()
                + "\r\n{\"type\":\"attachment\"}\nx"), "X-Sentry-Auth", AUTH);
        assertAnswer(400, "invalid event envelope", answer);
        assertEquals("[\"missing newline after header or payload\"]", answer.causes());
    }
}
