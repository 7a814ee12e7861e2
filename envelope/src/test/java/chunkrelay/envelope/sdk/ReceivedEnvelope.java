package chunkrelay.envelope.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One request an SDK sent, as the recorder saw it: request line, headers, the decoded envelope split into items,
 * and the status the relay answered with.
 */
public record ReceivedEnvelope(String path, String query, Map<String, List<String>> headers, int status,
                               JsonNode header, List<Item> items) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** An envelope item: its header line and its payload bytes. */
    public record Item(JsonNode header, byte[] payload) {

        public String type() {
            return header.path("type").asText();
        }

        public JsonNode payloadJson() {
            try {
                return JSON.readTree(payload);
            } catch (IOException e) {
                throw new UncheckedIOException("item of type '" + type() + "' is not JSON", e);
            }
        }
    }

    public boolean accepted() {
        return status >= 200 && status < 300;
    }

    public List<Item> itemsOfType(String type) {
        return items.stream().filter(item -> item.type().equals(type)).toList();
    }

    /** The envelope header: the JSON object on the first line. */
    static JsonNode parseHeader(byte[] envelope) throws IOException {
        int end = lineEnd(envelope, 0);
        return JSON.readTree(Arrays.copyOfRange(envelope, 0, end));
    }

    /**
     * Splits the items after the header line: an item header with {@code length} takes exactly that many bytes,
     * one without runs to the next newline (Sentry's envelope wire format).
     */
    static List<Item> parseItems(byte[] envelope) throws IOException {
        List<Item> items = new ArrayList<>();
        int position = lineEnd(envelope, 0) + 1;
        while (position < envelope.length) {
            int headerEnd = lineEnd(envelope, position);
            JsonNode itemHeader = JSON.readTree(Arrays.copyOfRange(envelope, position, headerEnd));
            if (!itemHeader.isObject() || !itemHeader.hasNonNull("type")) {
                throw new IOException("item header without type at byte " + position);
            }
            int payloadStart = Math.min(headerEnd + 1, envelope.length);
            int payloadEnd;
            if (itemHeader.has("length")) {
                long length = itemHeader.get("length").asLong(-1);
                if (length < 0 || payloadStart + length > envelope.length) {
                    throw new IOException("item length " + itemHeader.get("length") + " runs past the envelope end");
                }
                payloadEnd = (int) (payloadStart + length);
            } else {
                payloadEnd = lineEnd(envelope, payloadStart);
            }
            items.add(new Item(itemHeader, Arrays.copyOfRange(envelope, payloadStart, payloadEnd)));
            position = payloadEnd + 1;
        }
        return items;
    }

    private static int lineEnd(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return bytes.length;
    }
}
