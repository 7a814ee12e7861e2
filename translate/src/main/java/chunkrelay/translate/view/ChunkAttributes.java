package chunkrelay.translate.view;

import java.util.Comparator;
import java.util.Objects;

/**
 * What the chunk filters of a view read, beside the profiler: the chunk's platform, release and environment (each
 * null when the chunk has none). A rollup keeps its samples apart by them, so that a filtered answer from rollups
 * equals the one from the chunks.
 */
public record ChunkAttributes(String profilerId, String platform, String release, String environment)
        implements Comparable<ChunkAttributes> {
    private static final Comparator<String> NULLS_FIRST = Comparator.nullsFirst(Comparator.naturalOrder());
    private static final Comparator<ChunkAttributes> ORDER = Comparator
            .comparing(ChunkAttributes::profilerId, NULLS_FIRST)
            .thenComparing(ChunkAttributes::platform, NULLS_FIRST)
            .thenComparing(ChunkAttributes::release, NULLS_FIRST)
            .thenComparing(ChunkAttributes::environment, NULLS_FIRST);

    /** Whether a filter lets chunks of these attributes through. */
    public boolean passes(ViewFilter filter) {
        return (filter.profilerId() == null || filter.profilerId().equals(profilerId))
                && (filter.platform() == null || filter.platform().equals(platform))
                && (filter.release() == null || filter.release().equals(release))
                && (filter.environment() == null || filter.environment().equals(environment));
    }

    @Override
    public int compareTo(ChunkAttributes other) {
        return Objects.equals(this, other) ? 0 : ORDER.compare(this, other);
    }
}
