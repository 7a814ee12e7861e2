package chunkrelay.envelope.upstream;

import chunkrelay.storage.ProjectIds;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What goes upstream of one SDK envelope: its header, the items the relay passes on, and what the request said of
 * its sender (key, client, user agent, origin, forwarded-for), with when it arrived.
 *
 * @param projectId    the project of the request path
 * @param publicKey    the key the request was authorized with
 * @param sentryClient the {@code sentry_client} of the request's auth, or null
 * @param header       the envelope header as received
 * @param items        the items passed on, in the order received
 * @param receivedAt   when the relay received it
 * @param userAgent    the client's {@code User-Agent}, or null
 * @param origin       the client's {@code Origin}, or null
 * @param forwardedFor the client chain with the client's address appended
 */
public record UpstreamEnvelope(long projectId, String publicKey, String sentryClient, ObjectNode header,
                               List<ForwardedItem> items, Instant receivedAt, String userAgent, String origin,
                               String forwardedFor) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public UpstreamEnvelope {
        items = List.copyOf(items);
    }

    public long size() {
        return items.stream().mapToLong(ForwardedItem::size).sum() + header.toString().length() + 1L;
    }

    UpstreamEnvelope withItems(List<ForwardedItem> kept) {
        return new UpstreamEnvelope(projectId, publicKey, sentryClient, header, kept, receivedAt, userAgent, origin,
                forwardedFor);
    }

    /**
     * The envelope as sent at {@code now}: the header with its {@code dsn} pointing at the upstream and its
     * {@code sent_at} moved forward by the time the envelope waited here, then every item as received.
     */
    byte[] wire(URI upstream, Instant now) {
        ObjectNode sent = header.deepCopy();
        if (sent.hasNonNull("dsn")) {
            sent.put("dsn", upstream.getScheme() + "://" + publicKey + "@" + upstream.getRawAuthority()
                    + (upstream.getRawPath() == null ? "" : upstream.getRawPath()) + "/" + ProjectIds.format(projectId));
        }
        JsonNode sentAt = sent.get("sent_at");
        if (sentAt != null && sentAt.isTextual()) {
            try {
                Instant original = Instant.parse(sentAt.textValue());
                sent.put("sent_at", original.plus(Duration.between(receivedAt, now)).toString());
            } catch (DateTimeParseException e) {
                // not a timestamp the relay can move: it goes as the SDK wrote it
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, size() + 64));
        out.writeBytes(sent.toString().getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        for (ForwardedItem item : items) {
            out.writeBytes(item.header());
            out.write('\n');
            out.writeBytes(item.payload());
            out.write('\n');
        }
        return out.toByteArray();
    }

    /** This envelope for the spool: a JSON line of what it is, then the items' header and payload bytes. */
    byte[] spooled() {
        ObjectNode meta = JSON.createObjectNode();
        meta.put("project", projectId).put("key", publicKey).put("client", sentryClient)
                .put("received_at", receivedAt.toString()).put("user_agent", userAgent).put("origin", origin)
                .put("forwarded_for", forwardedFor).set("header", header);
        ArrayNode sizes = meta.putArray("items");
        for (ForwardedItem item : items) {
            sizes.addObject().put("type", item.type()).put("header", item.header().length)
                    .put("payload", item.payload().length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 8, size() + 512));
        out.writeBytes(meta.toString().getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        for (ForwardedItem item : items) {
            out.writeBytes(item.header());
            out.writeBytes(item.payload());
        }
        return out.toByteArray();
    }

    static UpstreamEnvelope fromSpool(byte[] spooled) {
        int newline = 0;
        while (spooled[newline] != '\n') {
            newline++;
        }
        try {
            JsonNode meta = JSON.readTree(new String(spooled, 0, newline, StandardCharsets.UTF_8));
            List<ForwardedItem> items = new ArrayList<>();
            int at = newline + 1;
            for (JsonNode item : meta.get("items")) {
                int headerLength = item.get("header").asInt();
                int payloadLength = item.get("payload").asInt();
                byte[] header = Arrays.copyOfRange(spooled, at, at + headerLength);
                at += headerLength;
                byte[] payload = Arrays.copyOfRange(spooled, at, at + payloadLength);
                at += payloadLength;
                items.add(new ForwardedItem(item.get("type").asText(), header, payload));
            }
            return new UpstreamEnvelope(meta.get("project").asLong(), meta.get("key").asText(),
                    text(meta, "client"), (ObjectNode) meta.get("header"), items,
                    Instant.parse(meta.get("received_at").asText()), text(meta, "user_agent"), text(meta, "origin"),
                    text(meta, "forwarded_for"));
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable spooled envelope", e);
        }
    }

    private static String text(JsonNode meta, String field) {
        JsonNode value = meta.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
