package chunkrelay.chunk;

/**
 * What the envelope item header says about a chunk, as far as Relay's checks use it.
 *
 * @param platform      the header's {@code platform}, or null
 * @param contentType   the header's {@code content_type}, or null
 * @param hasMetaLength whether the header carries {@code meta_length}
 */
public record ChunkItemHeader(String platform, String contentType, boolean hasMetaLength) {
}
