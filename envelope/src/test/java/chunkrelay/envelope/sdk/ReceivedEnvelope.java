package chunkrelay.envelope.sdk;

import chunkrelay.envelope.ingest.EnvelopeReader;
import chunkrelay.envelope.ingest.ItemHeader;
import chunkrelay.envelope.errors.RelayError;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
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

    /**
     * Splits a decoded envelope into its header and items with the relay's own {@link EnvelopeReader}, so the
     * recording reads the wire format exactly as the relay does.
     *
     * @throws RelayError when the envelope is malformed
     */
    static Split split(byte[] envelope) {
        EnvelopeReader reader = new EnvelopeReader(new ByteArrayInputStream(envelope), envelope.length);
        JsonNode header = reader.readHeaders();
        List<Item> items = new ArrayList<>();
        ItemHeader item;
        while ((item = reader.nextItem()) != null) {
            items.add(new Item(item.json(), reader.readPayload(envelope.length)));
        }
        return new Split(header, List.copyOf(items));
    }

    /** An envelope split into its header and items. */
    record Split(JsonNode header, List<Item> items) {
    }
}
