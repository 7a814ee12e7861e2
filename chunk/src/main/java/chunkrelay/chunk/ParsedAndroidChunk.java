package chunkrelay.chunk;

/**
 * An Android ART trace chunk as parsed from its JSON (Relay's {@code AndroidProfileChunk}), before the trace is
 * decoded: the chunk's fields and where the base64 text of {@code sampled_profile} is.
 *
 * @param fields         the chunk-level fields
 * @param timestampNanos the chunk's {@code timestamp} (Unix time taken just before tracing started): the time origin
 *                       of the trace's wall-clock offsets
 */
record ParsedAndroidChunk(
        ChunkFields fields,
        long timestampNanos,
        SampledProfileText sampledProfile) {

    /** The base64 text of {@code sampled_profile}: {@code bytes[from, to)}, read in place from the payload. */
    record SampledProfileText(byte[] bytes, int from, int to) {
        int length() {
            return to - from;
        }
    }
}
