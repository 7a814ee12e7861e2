package chunkrelay.chunk;

/**
 * The JSON metadata of an Android Perfetto chunk, the part of the compound item before {@code meta_length}.
 *
 * @param fields       the chunk-level fields
 * @param contentType  the metadata's {@code content_type} (which trace follows), or null
 * @param missingField the first required field that is missing, as an error detail, or null when none is
 */
record ParsedPerfettoMetadata(
        ChunkFields fields,
        String contentType,
        String missingField) {
}
