package chunkrelay.storage;

import java.util.Map;
import java.util.Objects;

/**
 * One accepted chunk in both forms, ready to archive.
 *
 * @param key           where it goes
 * @param sentryPayload the profile_chunk item payload exactly as the SDK sent it (after transport decoding)
 * @param otlpPayload   the serialized {@code ExportProfilesServiceRequest}
 * @param metadata      user metadata for both objects, by lowercase name ({@link #PLATFORM}, {@link #RELEASE},
 *                      {@link #SAMPLE_COUNT}, {@link #RELAY_VERSION}, ...); project, profiler id and chunk id are
 *                      added from the key
 */
public record ArchiveEntry(ArchiveKey key, byte[] sentryPayload, byte[] otlpPayload, Map<String, String> metadata) {

    public static final String PROJECT = "project";
    public static final String PROFILER_ID = "profiler-id";
    public static final String CHUNK_ID = "chunk-id";
    public static final String PLATFORM = "platform";
    public static final String RELEASE = "release";
    public static final String ENVIRONMENT = "environment";
    public static final String SAMPLE_COUNT = "sample-count";
    /** Unix nanoseconds of the chunk's first and last sample, for listings that filter by time. */
    public static final String FIRST_SAMPLE_NS = "first-sample-ns";
    public static final String LAST_SAMPLE_NS = "last-sample-ns";
    public static final String RELAY_VERSION = "relay-version";
    /**
     * The item header's {@code meta_length} of a compound (Perfetto) chunk: where its Sentry form's JSON metadata
     * ends and its trace begins, needed to read that form again.
     */
    public static final String META_LENGTH = "meta-length";

    public ArchiveEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(sentryPayload, "sentryPayload");
        Objects.requireNonNull(otlpPayload, "otlpPayload");
        metadata = Map.copyOf(metadata);
        for (String name : metadata.keySet()) {
            if (!name.matches("[a-z0-9][a-z0-9-]{0,63}")) {
                throw new IllegalArgumentException("metadata names are lowercase letters, digits and '-': '" + name + "'");
            }
        }
    }
}
