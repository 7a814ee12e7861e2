package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Set;

/**
 * An envelope item header. The fields Relay reads are type-checked as Relay's deserializer does (a wrong type
 * makes the whole envelope invalid); the rest are kept as they came.
 *
 * @param json     the header as sent
 * @param type     {@code type}, required, any string (unknown types are not an error)
 * @param length   {@code length}, or null for a payload that runs to the next newline
 * @param platform {@code platform}, or null
 * @param contentType {@code content_type}, or null
 * @param filename {@code filename}, or null
 * @param metaLength {@code meta_length}, or null: where a compound item's JSON metadata ends
 */
public record ItemHeader(ObjectNode json, String type, Long length, String platform, String contentType,
                         String filename, Long metaLength) {
    private static final long U32_MAX = 0xFFFF_FFFFL;
    private static final Set<String> U32_FIELDS = Set.of("length", "item_count", "meta_length");
    private static final Set<String> STRING_FIELDS = Set.of("content_type", "filename", "platform", "attachment_type");
    private static final Set<String> BOOLEAN_FIELDS = Set.of("metrics_extracted", "spans_extracted",
            "fully_normalized", "sampled");

    /** Whether this item carries a profile chunk ({@code profile_chunk_ui} is Relay's alias of it). */
    public boolean isProfileChunk() {
        return type.equals("profile_chunk") || type.equals("profile_chunk_ui");
    }

    static ItemHeader from(ObjectNode json) {
        JsonNode type = json.get("type");
        if (type == null) {
            throw invalid("missing field `type`");
        }
        if (!type.isTextual()) {
            throw invalid("invalid type for `type`: expected a string");
        }
        for (String field : U32_FIELDS) {
            JsonNode value = json.get(field);
            if (value != null && !value.isNull()
                    && !(value.isIntegralNumber() && value.canConvertToLong()
                    && value.longValue() >= 0 && value.longValue() <= U32_MAX)) {
                throw invalid("invalid value for `" + field + "`: expected an unsigned 32-bit integer");
            }
        }
        for (String field : STRING_FIELDS) {
            JsonNode value = json.get(field);
            if (value != null && !value.isNull() && !value.isTextual()) {
                throw invalid("invalid type for `" + field + "`: expected a string");
            }
        }
        for (String field : BOOLEAN_FIELDS) {
            JsonNode value = json.get(field);
            if (value != null && !value.isBoolean()) {
                throw invalid("invalid type for `" + field + "`: expected a boolean");
            }
        }
        JsonNode routingHint = json.get("routing_hint");
        if (routingHint != null && !routingHint.isNull()
                && !(routingHint.isTextual() && EventIds.normalize(routingHint.textValue()) != null)) {
            throw invalid("invalid value for `routing_hint`: expected a UUID");
        }
        JsonNode length = json.get("length");
        JsonNode metaLength = json.get("meta_length");
        return new ItemHeader(json, type.textValue(),
                length == null || length.isNull() ? null : length.longValue(),
                text(json, "platform"), text(json, "content_type"), text(json, "filename"),
                metaLength == null || metaLength.isNull() ? null : metaLength.longValue());
    }

    private static String text(ObjectNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? null : value.textValue();
    }

    private static RelayError invalid(String cause) {
        return RelayError.invalidEnvelope("invalid item header", cause);
    }
}
