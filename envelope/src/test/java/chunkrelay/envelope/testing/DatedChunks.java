package chunkrelay.envelope.testing;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * A recorded SDK chunk moved in time and renamed: its samples shifted so that the first is at a given instant
 * (which picks its day in the archive) and a chunk id of the test's, as a chunk of that time would be sent.
 */
public final class DatedChunks {
    private static final ObjectMapper JSON = new ObjectMapper();

    private DatedChunks() {
    }

    /** An envelope with the recorded Node chunk whose first sample is at {@code firstSample}. */
    public static byte[] envelope(Instant firstSample, int chunkNumber) {
        return envelope("node", firstSample, chunkNumber);
    }

    /** An envelope with the first recorded chunk of {@code platform} whose first sample is at {@code firstSample}. */
    public static byte[] envelope(String platform, Instant firstSample, int chunkNumber) {
        return envelope(platform, firstSample, chunkNumber, null);
    }

    /** Likewise, of profiler session {@code profilerId} (32 hex digits), or the recorded one when null. */
    public static byte[] envelope(String platform, Instant firstSample, int chunkNumber, String profilerId) {
        RecordedChunk recorded = Fixtures.sdkChunks().stream()
                .filter(c -> c.itemHeader().path("platform").asText().equals(platform)).findFirst().orElseThrow();
        try {
            ObjectNode payload = (ObjectNode) JSON.readTree(recorded.payload());
            JsonNode samples = payload.path("profile").path("samples");
            double shift = firstSample.getEpochSecond() + firstSample.getNano() / 1e9
                    - samples.get(0).path("timestamp").asDouble();
            for (JsonNode sample : samples) {
                ((ObjectNode) sample).put("timestamp", sample.path("timestamp").asDouble() + shift);
            }
            payload.put("chunk_id", chunkId(chunkNumber));
            if (profilerId != null) {
                payload.put("profiler_id", profilerId);
            }
            byte[] body = JSON.writeValueAsBytes(payload);
            ObjectNode item = recorded.itemHeader().deepCopy();
            item.put("length", body.length);
            return Envelopes.withItem(Envelopes.header(), item.toString(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The chunk id {@link #envelope} gives chunk {@code chunkNumber}. */
    public static String chunkId(int chunkNumber) {
        return String.format("%032x", 0xc0ffeeL << 32 | chunkNumber);
    }
}
