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
        this(filter, grid, keepChunkAttributes, false);
    }

    /**
     * @param perStep whether the merged samples stay split per step of {@code grid} ({@link MergedProfile#perStep()}),
     *                as a minute's per-second detail keeps them
     */
    public ProfileMerger(ViewFilter filter, TimeGrid grid, boolean keepChunkAttributes, boolean perStep) {
        this.filter = filter;
        this.grid = grid;
        this.tables = new MergedTables(filter, grid, keepChunkAttributes, perStep);
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
        return (bucketWithin || samplesWithin) && nests(part);
    }

    /**
     * Whether the part {@code [fromNanos, toNanos)} of a rollup can be added to this merger: the rollup is split per
     * step, the part runs from step to step within its bucket and lies within the filter's range, and its ticks
     * nest in the grid (when there is one).
     */
    public boolean accepts(Rollup rollup, long fromNanos, long toNanos) {
        MergedProfile part = rollup.profile();
        return part.perStep() && fromNanos < toNanos && fromNanos >= filter.fromNanos()
                && toNanos <= filter.toNanos() && onStep(part.grid(), fromNanos) && onStep(part.grid(), toNanos)
                && nests(part);
    }

    private boolean nests(MergedProfile part) {
        return (grid == null || (part.grid() != null && grid.nests(part.grid())))
                && (!tables.perStep() || part.perStep());
    }

    private static boolean onStep(TimeGrid ticks, long nanos) {
        return nanos >= ticks.originNanos() && nanos <= ticks.endNanos()
                && (nanos - ticks.originNanos()) % ticks.stepNanos() == 0;
    }

    /** Adds a rollup's samples that the filter lets through ({@link #accepts(Rollup)} must hold). */
    public void add(Rollup rollup) {
        if (!accepts(rollup)) {
            throw new IllegalArgumentException("rollup " + rollup.startNanos() + ".." + rollup.endNanos()
                    + " does not fit this merge");
        }
        new RollupMapping(tables, rollup.profile()).add();
    }

    /**
     * Adds the samples of the part {@code [fromNanos, toNanos)} of a rollup split per step that the filter lets
     * through ({@link #accepts(Rollup, long, long)} must hold).
     */
    public void add(Rollup rollup, long fromNanos, long toNanos) {
        if (!accepts(rollup, fromNanos, toNanos)) {
            throw new IllegalArgumentException("rollup " + rollup.startNanos() + ".." + rollup.endNanos()
                    + " cannot give " + fromNanos + ".." + toNanos + " to this merge");
        }
        new RollupMapping(tables, rollup.profile(), fromNanos, toNanos).add();
    }

    /** The profile merged so far, in canonical order, as a copy; the merger goes on taking inputs. */
    public MergedProfile snapshot() {
        return tables.snapshot();
    }

    /** The merged profile, in canonical order; the merger must not be used after. */
    public MergedProfile result() {
        return tables.result();
    }
}
