package chunkrelay.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * A recorded envelope with its profile chunks' samples moved in time, so that the last sample of each is a given
 * moment: an SDK sends a chunk as its last sample is taken, so the relay sees the chunk as it would from a live SDK
 * (the open minute, not a late one). Every other item, and every other field, stays as recorded; each moved item's
 * {@code length} is written again.
 */
final class DatedEnvelope {
    /** Numbers written plain, as the SDKs write them ({@code 1795314530.919881}, not {@code 1.795314530919881E9}). */
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    private DatedEnvelope() {
    }

    /** {@code envelope} (decoded) with every profile chunk's last sample at {@code lastSample}. */
    static byte[] endingAt(byte[] envelope, Instant lastSample) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(envelope.length + 1024);
            int headerEnd = lineEnd(envelope, 0);
            out.write(envelope, 0, Math.min(headerEnd + 1, envelope.length));
            int at = headerEnd + 1;
            while (at < envelope.length) {
                int itemHeaderEnd = lineEnd(envelope, at);
                ObjectNode itemHeader = (ObjectNode) JSON.readTree(Arrays.copyOfRange(envelope, at, itemHeaderEnd));
                int payloadStart = itemHeaderEnd + 1;
                int payloadEnd = itemHeader.has("length") ? payloadStart + itemHeader.path("length").asInt()
                        : lineEnd(envelope, payloadStart);
                byte[] payload = Arrays.copyOfRange(envelope, payloadStart, payloadEnd);
                if (itemHeader.path("type").asText().equals("profile_chunk")
                        && !itemHeader.path("platform").asText().equals("android")) {
                    payload = moved(payload, lastSample);
                    itemHeader.put("length", payload.length);
                }
                out.write(JSON.writeValueAsBytes(itemHeader));
                out.write('\n');
                out.write(payload);
                at = payloadEnd;
                if (at < envelope.length && envelope[at] == '\n') {
                    out.write('\n');
                    at++;
                }
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] moved(byte[] payload, Instant lastSample) throws IOException {
        ObjectNode chunk = (ObjectNode) JSON.readTree(payload);
        JsonNode samples = chunk.path("profile").path("samples");
        double last = -Double.MAX_VALUE;
        for (JsonNode sample : samples) {
            last = Math.max(last, sample.path("timestamp").asDouble());
        }
        double shift = lastSample.getEpochSecond() + lastSample.getNano() / 1e9 - last;
        for (JsonNode sample : samples) {
            ((ObjectNode) sample).put("timestamp", BigDecimal.valueOf(sample.path("timestamp").asDouble() + shift));
        }
        return JSON.writeValueAsString(chunk).getBytes(StandardCharsets.UTF_8);
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
