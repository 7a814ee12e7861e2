package chunkrelay.storage;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * The user metadata of a chunk's archived objects, by lowercase name: project, profiler id and chunk id from its
 * key, and what the relay read from the chunk ({@link #PLATFORM}, {@link #RELEASE}, {@link #SAMPLE_COUNT}, ...),
 * so that listings and views can filter without reading the objects.
 */
public final class ChunkMetadata {
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
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

    private ChunkMetadata() {
    }

    /** Checks that every name is one S3 keeps as written: lowercase letters, digits and '-'. */
    static void checkNames(Map<String, String> metadata) {
        for (String name : metadata.keySet()) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("metadata names are lowercase letters, digits and '-': '" + name + "'");
            }
        }
    }
}
