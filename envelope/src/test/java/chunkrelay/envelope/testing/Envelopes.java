package chunkrelay.envelope.testing;

import chunkrelay.chunk.fixtures.Fixtures;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Envelopes for tests, built around a real SDK chunk. */
public final class Envelopes {
    public static final String KEY = "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";
    public static final String OTHER_KEY = "0123456789abcdef0123456789abcdef";
    public static final String EVENT_ID = "9ec79c33ec9942ab8353589fcb2e04dc";
    public static final String PATH = "/api/1/envelope/";
    public static final String AUTH = "Sentry sentry_version=7,sentry_client=test/1.0,sentry_key=" + KEY;

    private Envelopes() {
    }

    /** A real node chunk payload. */
    public static byte[] chunkPayload() {
        return Fixtures.sdkChunks().get(0).payload();
    }

    public static String header() {
        return "{\"event_id\":\"" + EVENT_ID + "\",\"sent_at\":\"2026-11-22T02:26:47.133Z\",\"sdk\":{\"name\":\"test\",\"version\":\"1.0\"}}";
    }

    public static String headerWithDsn(String key, long projectId) {
        return "{\"event_id\":\"" + EVENT_ID + "\",\"dsn\":\"https://" + key + "@relay.example/" + projectId + "\"}";
    }

    /** A header line, then one profile_chunk item with length. */
    public static byte[] withChunk(String header) {
        return withItem(header, "{\"type\":\"profile_chunk\",\"platform\":\"node\",\"length\":" + chunkPayload().length + "}",
                chunkPayload());
    }

    public static byte[] withChunk() {
        return withChunk(header());
    }

    public static byte[] withItem(String header, String itemHeader, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((header + "\n" + itemHeader + "\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(payload);
        out.write('\n');
        return out.toByteArray();
    }

    public static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
