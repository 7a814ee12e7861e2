package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ClientSdk;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * The chunk id and platform of a chunk payload, read from the top-level fields of its first megabyte only, for
 * rate-limit categories and log lines before (or without) a full parse. Either is null when not found there;
 * nothing is validated and nothing is thrown.
 *
 * @param chunkId  {@code chunk_id} (or its aliases {@code event_id}, {@code profile_id}) as sent
 * @param platform {@code platform} as sent
 */
public record ChunkPeek(String chunkId, String platform) {
    private static final JsonFactory JSON = new JsonFactory();
    private static final long SCAN_BYTES = 1024 * 1024;
    /** Client input goes to log lines: longer values are cut. */
    private static final int MAX_LENGTH = 64;

    public ChunkPeek {
        chunkId = cut(chunkId);
        platform = cut(platform);
    }

    private static String cut(String value) {
        return value == null || value.length() <= MAX_LENGTH ? value : value.substring(0, MAX_LENGTH) + "...";
    }

    /**
     * The chunk's {@code client_sdk} (name and version, either null when not a string), read from the top-level fields
     * of its first megabyte; null when not found there. For a refused chunk's health counts only: it reads on past the
     * chunk id and platform, through the samples when they come first.
     */
    public static ClientSdk clientSdk(byte[] payload) {
        try (JsonParser p = JSON.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME && p.currentLocation().getByteOffset() < SCAN_BYTES) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("client_sdk") && value == JsonToken.START_OBJECT) {
                    return sdk(p);
                }
                p.skipChildren();
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable payload simply has no SDK to tell
        }
        return null;
    }

    private static ClientSdk sdk(JsonParser p) throws IOException {
        String name = null;
        String version = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.VALUE_STRING && field.equals("name")) {
                name = cut(p.getText());
            } else if (value == JsonToken.VALUE_STRING && field.equals("version")) {
                version = cut(p.getText());
            } else {
                p.skipChildren();
            }
        }
        return new ClientSdk(name, version);
    }

    public static ChunkPeek of(byte[] payload) {
        String chunkId = null;
        String platform = null;
        try (JsonParser p = JSON.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return new ChunkPeek(null, null);
            }
            while ((chunkId == null || platform == null) && p.nextToken() == JsonToken.FIELD_NAME
                    && p.currentLocation().getByteOffset() < SCAN_BYTES) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING) {
                    switch (name) {
                        case "chunk_id", "event_id", "profile_id" -> chunkId = chunkId == null ? p.getText() : chunkId;
                        case "platform" -> platform = p.getText();
                        default -> {
                            // other fields do not matter here
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable payload simply has no id or platform to tell
        }
        return new ChunkPeek(chunkId, platform);
    }
}
