package chunkrelay.envelope.ingest;

import chunkrelay.envelope.auth.Dsn;
import chunkrelay.envelope.errors.RelayError;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;

/**
 * The envelope header, with the fields Relay types checked as Relay does.
 *
 * @param json    the header as sent
 * @param eventId {@code event_id} as 32 lowercase hex digits, or null
 * @param sentAt  {@code sent_at}, or null
 * @param dsn     {@code dsn}, or null
 * @param origin  {@code origin}, normalised, or null
 */
public record EnvelopeHeaders(ObjectNode json, String eventId, Instant sentAt, Dsn dsn, String origin) {

    static EnvelopeHeaders from(ObjectNode json) {
        String eventId = null;
        JsonNode id = json.get("event_id");
        if (id != null && !id.isNull()) {
            eventId = id.isTextual() ? EventIds.normalize(id.textValue()) : null;
            if (eventId == null) {
                throw invalid("invalid value for `event_id`: expected a UUID");
            }
        }
        Instant sentAt = null;
        JsonNode sent = json.get("sent_at");
        if (sent != null && !sent.isNull()) {
            sentAt = sent.isTextual() ? parseRfc3339(sent.textValue()) : null;
            if (sentAt == null) {
                throw invalid("invalid value for `sent_at`: expected an RFC 3339 timestamp");
            }
        }
        Dsn dsn = null;
        JsonNode dsnNode = json.get("dsn");
        if (dsnNode != null && !dsnNode.isNull()) {
            dsn = dsnNode.isTextual() ? Dsn.parse(dsnNode.textValue()).orElse(null) : null;
            if (dsn == null) {
                throw invalid("invalid value for `dsn`: expected a DSN with a 32-character key and a project id");
            }
        }
        String origin = null;
        JsonNode originNode = json.get("origin");
        if (originNode != null && !originNode.isNull()) {
            origin = originNode.isTextual() ? normalizeUrl(originNode.textValue()).orElse(null) : null;
            if (origin == null) {
                throw invalid("invalid value for `origin`: expected a URL");
            }
        }
        for (String field : new String[] {"version", "retention", "downsampled_retention"}) {
            JsonNode value = json.get(field);
            boolean optional = !field.equals("version");
            if (value != null && !(optional && value.isNull())
                    && !(value.isIntegralNumber() && value.canConvertToInt()
                    && value.intValue() >= 0 && value.intValue() <= 0xFFFF)) {
                throw invalid("invalid value for `" + field + "`: expected an unsigned 16-bit integer");
            }
        }
        for (String field : new String[] {"client", "user_agent", "forwarded_for"}) {
            JsonNode value = json.get(field);
            boolean optional = !field.equals("forwarded_for");
            if (value != null && !(optional && value.isNull()) && !value.isTextual()) {
                throw invalid("invalid type for `" + field + "`: expected a string");
            }
        }
        return new EnvelopeHeaders(json, eventId, sentAt, dsn, origin);
    }

    /** The SDK's name from {@code sdk.name}, or null. */
    public String sdkName() {
        JsonNode name = json.path("sdk").path("name");
        return name.isTextual() ? name.textValue() : null;
    }

    /** The SDK's version from {@code sdk.version}, or null. */
    public String sdkVersion() {
        JsonNode version = json.path("sdk").path("version");
        return version.isTextual() ? version.textValue() : null;
    }

    static Instant parseRfc3339(String text) {
        try {
            return OffsetDateTime.parse(text.toUpperCase(Locale.ROOT).replace(' ', 'T')).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** An http(s) URL with scheme and host lower-cased, the default port dropped and an empty path as "/". */
    static Optional<String> normalizeUrl(String text) {
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null) {
                return Optional.empty();
            }
            int port = uri.getPort();
            boolean defaultPort = port == -1 || port == 80 && scheme.equals("http") || port == 443 && scheme.equals("https");
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            return Optional.of(scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT)
                    + (defaultPort ? "" : ":" + port) + path
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
    }

    private static RelayError invalid(String cause) {
        return RelayError.invalidEnvelope("invalid envelope header", cause);
    }
}
