package chunkrelay.envelope.auth;

import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.ingest.EventIds;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Relay's parsing of auth headers, query strings, keys and DSNs. */
class AuthParsingTest {
    private static final String KEY = Envelopes.KEY;

    @Test
    void parsesHeaderPairsWithOrWithoutSpaces() throws SentryAuth.Invalid {
        SentryAuth auth = SentryAuth.fromHeader("Sentry sentry_key = " + KEY + " ,sentry_version=7, sentry_client=sdk/1.0");
        assertEquals(new SentryAuth(KEY, 7, "sdk/1.0"), auth);
        assertEquals(KEY, SentryAuth.fromHeader("sentry sentry_key=" + KEY + ",garbage,=x").publicKey());
    }

    @Test
    void readsVersionBeforeTheFirstDotAndDefaultsToSeven() throws SentryAuth.Invalid {
        assertEquals(5, SentryAuth.fromHeader("Sentry sentry_key=" + KEY + ",sentry_version=5.2").version());
        assertEquals(7, SentryAuth.fromHeader("Sentry sentry_key=" + KEY).version());
        assertThrows(SentryAuth.Invalid.class, () -> SentryAuth.fromHeader("Sentry sentry_key=" + KEY + ",sentry_version=70000"));
    }

    @Test
    void refusesNonSentryPrefixAndMissingKey() {
        assertThrows(SentryAuth.Invalid.class, () -> SentryAuth.fromHeader("Bearer sentry_key=" + KEY));
        assertThrows(SentryAuth.Invalid.class, () -> SentryAuth.fromHeader("Sentry sentry_version=7"));
        assertThrows(SentryAuth.Invalid.class, () -> SentryAuth.fromQuery("sentry_version=7"));
    }

    @Test
    void decodesFormEncodedQuery() throws SentryAuth.Invalid {
        SentryAuth auth = SentryAuth.fromQuery("sentry_version=7&sentry_key=" + KEY + "&sentry_client=sentry.javascript.node%2F11.1.0&x=1+2");
        assertEquals("sentry.javascript.node/11.1.0", auth.client());
        assertEquals(KEY, auth.publicKey());
    }

    @Test
    void ignoresFlagsAfterADotInKeys() {
        assertEquals(KEY, ProjectKey.withoutFlags(KEY + ".no-cache.other"));
        assertNull(ProjectKey.withoutFlags("short"));
        assertNull(ProjectKey.withoutFlags("c0ffee5e1ec7ab1e5a11ab1e0b5e55é"));
    }

    @Test
    void parsesDsnsAsRelayDoes() {
        assertEquals(Optional.of(new Dsn(KEY, 42)), Dsn.parse("https://" + KEY + "@o1.ingest.example/42"));
        assertEquals(Optional.of(new Dsn(KEY, 42)), Dsn.parse("http://" + KEY + ":secret@host:9000/prefix/42"));
        assertTrue(Dsn.parse("ftp://" + KEY + "@host/42").isEmpty());
        assertTrue(Dsn.parse("https://host/42").isEmpty());
        assertTrue(Dsn.parse("https://" + KEY + "@host/").isEmpty());
        assertTrue(Dsn.parse("https://" + KEY + "@host/abc").isEmpty());
        assertTrue(Dsn.parse("https://short@host/1").isEmpty());
    }

    @Test
    void normalizesEventIdsToHex() {
        assertEquals("9ec79c33ec9942ab8353589fcb2e04dc", EventIds.normalize("9EC79C33-EC99-42AB-8353-589FCB2E04DC"));
        assertEquals("9ec79c33ec9942ab8353589fcb2e04dc", EventIds.normalize("{9ec79c33-ec99-42ab-8353-589fcb2e04dc}"));
        assertNull(EventIds.normalize("9ec79c33ec9942ab8353589fcb2e04d"));
        assertNull(EventIds.normalize("9ec79c33ec9942ab8353589fcb2e04dg"));
    }
}
