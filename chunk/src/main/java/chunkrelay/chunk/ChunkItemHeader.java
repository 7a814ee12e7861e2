package chunkrelay.chunk;

/**
 * What the envelope item header says about a chunk, as far as Relay's checks use it.
 *
 * @param platform    the header's {@code platform}, or null
 * @param contentType the header's {@code content_type}, or null
 * @param metaLength  the header's {@code meta_length} (an unsigned 32-bit count of bytes), or null: where a compound
 *                    (Perfetto) item's JSON metadata ends and its trace begins
 */
public record ChunkItemHeader(String platform, String contentType, Long metaLength) {
    /** The {@code content_type} of a compound Perfetto item, as the released SDK writes it. */
    public static final String PERFETTO_CONTENT_TYPE = "application/x-perfetto-trace";

    /** A header without {@code meta_length}: every JSON chunk item. */
    public ChunkItemHeader(String platform, String contentType) {
        this(platform, contentType, null);
    }

    public boolean hasMetaLength() {
        return metaLength != null;
    }
}
