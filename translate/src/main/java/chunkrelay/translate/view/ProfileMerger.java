package chunkrelay.translate.view;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

/**
 * Merges OTLP profiles requests (the archived OTLP forms of chunks) and rollups of them, one at a time, into a
 * {@link MergedProfile}, keeping the samples a {@link ViewFilter} lets through. Each table of each input is mapped
 * into the merged tables the first time a kept sample reaches it, so the merge is linear in samples and holds nothing
 * of an input once it is added. Not thread-safe.
 */
public final class ProfileMerger {
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final MergedTables tables;

    /** A merger for an answer: no step counts, threads not split by chunk attributes. */
    public ProfileMerger(ViewFilter filter) {
        this(filter, null, false);
    }

    /**
     * @param grid                the steps to count each thread's samples on (a timeline's, or a rollup's ticks),
     *                            or null
     * @param keepChunkAttributes whether threads stay apart by their chunks' attributes, as a rollup keeps them
     */
    public ProfileMerger(ViewFilter filter, TimeGrid grid, boolean keepChunkAttributes) {
        this.filter = filter;
        this.grid = grid;
        this.tables = new MergedTables(filter, grid, keepChunkAttributes);
    }

    /** Adds the samples of one request that the filter lets through, of a chunk whose attributes are unknown. */
    public void add(ExportProfilesServiceRequest request) {
        add(request, null, null, null);
    }

    /** Adds the samples of one chunk's request that the filter lets through. */
    public void add(ExportProfilesServiceRequest request, String platform, String release, String environment) {
        add(request, platform, release, environment, filter.fromNanos(), filter.toNanos());
    }

    /**
     * Adds the samples of one chunk's request that the filter lets through within {@code [fromNanos, toNanos)} (a
     * part of the filter's range: the rest of the range is added from elsewhere); the chunk counts when its first
     * sample lies in that part.
     */
    public void add(ExportProfilesServiceRequest request, String platform, String release, String environment,
                    long fromNanos, long toNanos) {
        new RequestMapping(tables, request.getDictionary(), Math.max(fromNanos, filter.fromNanos()),
                Math.min(toNanos, filter.toNanos())).add(request.getResourceProfilesList(), platform, release,
                environment);
    }

    /**
     * Whether a rollup can be added to this merger: its bucket lies within the filter's range, or (a bucket at the
     * range's edge, such as the minute now is in) every sample it holds does; and its ticks nest in the grid (when
     * there is one).
     */
    public boolean accepts(Rollup rollup) {
        MergedProfile part = rollup.profile();
        boolean bucketWithin = rollup.startNanos() >= filter.fromNanos() && rollup.endNanos() <= filter.toNanos();
        boolean samplesWithin = part.startNanos() >= filter.fromNanos() && part.lastSampleNanos() < filter.toNanos();
        return (bucketWithin || samplesWithin)
                && (grid == null || (part.grid() != null && grid.nests(part.grid())));
    }

    /** Adds a rollup's samples that the filter lets through ({@link #accepts} must hold). */
    public void add(Rollup rollup) {
        if (!accepts(rollup)) {
            throw new IllegalArgumentException("rollup " + rollup.startNanos() + ".." + rollup.endNanos()
                    + " does not fit this merge");
        }
        new RollupMapping(tables, rollup.profile()).add();
    }

    /** The merged profile, in canonical order; the merger must not be used after. */
    public MergedProfile result() {
        return tables.result();
    }
}
