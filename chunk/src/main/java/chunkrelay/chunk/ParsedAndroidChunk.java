package chunkrelay.chunk;

import java.util.List;
import java.util.Map;

/**
 * An Android ART trace chunk as parsed from its JSON (Relay's {@code AndroidProfileChunk}), before the trace is
 * decoded: the chunk's fields and where the base64 text of {@code sampled_profile} is.
 *
 * @param timestampNanos the chunk's {@code timestamp} (Unix time taken just before tracing started): the time origin
 *                       of the trace's wall-clock offsets
 */
record ParsedAndroidChunk(
        SentryUuid chunkId,
        SentryUuid profilerId,
        String platform,
        String release,
        String environment,
        ClientSdk clientSdk,
        String version,
        List<DebugImage> debugImages,
        Map<String, Measurement> measurements,
        long timestampNanos,
        SampledProfileText sampledProfile) {

    /** The base64 text of {@code sampled_profile}: {@code bytes[from, to)}, read in place from the payload. */
    record SampledProfileText(byte[] bytes, int from, int to) {
        int length() {
            return to - from;
        }
    }
}
