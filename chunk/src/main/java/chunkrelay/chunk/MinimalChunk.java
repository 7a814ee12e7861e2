package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * What Relay reads first from a chunk to route it: the chunk id ({@code chunk_id}, or its aliases
 * {@code event_id} / {@code profile_id}; required, a UUID), {@code platform} (required string),
 * {@code release} (optional string), {@code version} (optional; "1", "2" or "2.android-trace", anything
 * else is an error) and whether a non-null {@code sampled_profile} is present. Every other value is
 * skipped, but still has to be well-formed JSON.
 *
 * @param version null when the payload has no {@code version}
 */
record MinimalChunk(String platform, String version, boolean hasSampledProfile) {
    static final String VERSION_1 = "1";
    static final String VERSION_2 = "2";
    static final String VERSION_2_ANDROID_TRACE = "2.android-trace";

    /** Reads the root object only; like Relay, nothing after the root value is looked at. */
    static MinimalChunk parse(JsonFactory factory, byte[] payload) throws IOException, ChunkSchemaException {
        requireUtf8WithoutBom(payload);
        try (JsonParser p = factory.createParser(payload)) {
            p.nextToken();
            JsonValues.expectObject(p, "the chunk");
            String platform = null;
            String version = null;
            boolean hasId = false;
            boolean hasRelease = false;
            boolean hasVersion = false;
            boolean hasSampledProfile = false;
            boolean seenSampledProfile = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "chunk_id", "event_id", "profile_id" -> {
                        // one field under three names: two of them together are a duplicate
                        if (hasId) {
                            throw duplicate("chunk_id (or event_id, profile_id)");
                        }
                        hasId = true;
                        String id = JsonValues.string(p, name);
                        if (SentryUuid.parseOrNull(id) == null) {
                            throw new ChunkSchemaException(name + ": \"" + JsonValues.abbreviate(id) + "\" is not a UUID");
                        }
                    }
                    case "platform" -> {
                        if (platform != null) {
                            throw duplicate(name);
                        }
                        platform = JsonValues.string(p, name);
                    }
                    case "release" -> {
                        if (hasRelease) {
                            throw duplicate(name);
                        }
                        hasRelease = true;
                        JsonValues.optionalString(p, name);
                    }
                    case "version" -> {
                        if (hasVersion) {
                            throw duplicate(name);
                        }
                        hasVersion = true;
                        version = version(p);
                    }
                    case "sampled_profile" -> {
                        if (seenSampledProfile) {
                            throw duplicate(name);
                        }
                        seenSampledProfile = true;
                        hasSampledProfile = p.currentToken() != JsonToken.VALUE_NULL;
                        p.skipChildren();
                    }
                    default -> p.skipChildren();
                }
            }
            if (!hasId) {
                throw new ChunkSchemaException("chunk_id: missing field");
            }
            if (platform == null) {
                throw new ChunkSchemaException("platform: missing field");
            }
            return new MinimalChunk(platform, version, hasSampledProfile);
        }
    }

    /**
     * serde_json reads UTF-8 only and no byte order mark; Jackson would detect a BOM or UTF-16/32 from the
     * first four bytes (zero bytes there) and decode them.
     */
    static boolean isUtf8WithoutBom(byte[] payload) {
        try {
            requireUtf8WithoutBom(payload);
            return true;
        } catch (ChunkSchemaException notUtf8) {
            return false;
        }
    }

    private static void requireUtf8WithoutBom(byte[] payload) throws ChunkSchemaException {
        if (payload.length >= 3 && (payload[0] & 0xFF) == 0xEF && (payload[1] & 0xFF) == 0xBB
                && (payload[2] & 0xFF) == 0xBF) {
            throw new ChunkSchemaException("the chunk starts with a byte order mark, which JSON does not allow");
        }
        for (int i = 0; i < Math.min(4, payload.length); i++) {
            if (payload[i] == 0) {
                throw new ChunkSchemaException("the chunk is not UTF-8 JSON (zero byte at offset " + i + ")");
            }
        }
        if (payload.length >= 2 && ((payload[0] & 0xFF) == 0xFE || (payload[0] & 0xFF) == 0xFF)) {
            throw new ChunkSchemaException("the chunk starts with a UTF-16 byte order mark, JSON must be UTF-8");
        }
    }

    static String version(JsonParser p) throws IOException, ChunkSchemaException {
        String version = JsonValues.string(p, "version");
        if (!version.equals(VERSION_1) && !version.equals(VERSION_2) && !version.equals(VERSION_2_ANDROID_TRACE)) {
            throw new ChunkSchemaException("version: unknown variant \"" + JsonValues.abbreviate(version)
                    + "\", expected \"1\", \"2\" or \"2.android-trace\"");
        }
        return version;
    }

    static ChunkSchemaException duplicate(String field) {
        return new ChunkSchemaException("duplicate field " + field);
    }
}
