package chunkrelay.chunk;

import java.util.List;
import java.util.Map;

/**
 * The JSON metadata of an Android Perfetto chunk, the part of the compound item before {@code meta_length}.
 *
 * @param contentType  the metadata's {@code content_type} (which trace follows), or null
 * @param missingField the first required field that is missing, as an error detail, or null when none is
 */
record ParsedPerfettoMetadata(
        SentryUuid chunkId,
        SentryUuid profilerId,
        String platform,
        String release,
        String environment,
        ClientSdk clientSdk,
        String version,
        List<DebugImage> debugImages,
        Map<String, Measurement> measurements,
        String contentType,
        String missingField) {
}
