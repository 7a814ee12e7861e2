package chunkrelay.translate.view;

import java.util.Collections;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The merged samples of one project and time bucket, as the relay keeps them in the bucket ahead of queries: every
 * derived chunk's samples of {@code [startNanos, endNanos)}, threads kept apart by their chunks' attributes, counted
 * per tick of the profile's grid. A range is answered from whole rollups plus the chunks at its edges.
 *
 * @param included       for a minute's rollup, the index entries (chunk names) it holds: how a query tells whether
 *                       a late chunk is in it
 * @param minuteVersions for an hour's or a day's rollup, the version (chunk count) of each minute's rollup it was
 *                       merged from, by minute start
 */
public record Rollup(long startNanos, long endNanos, MergedProfile profile, SortedSet<String> included,
                     SortedMap<Long, Long> minuteVersions) {
    public Rollup {
        if (profile.grid() == null || profile.grid().originNanos() != startNanos
                || profile.grid().endNanos() != endNanos) {
            throw new IllegalArgumentException("a rollup's ticks must cover its bucket");
        }
        included = Collections.unmodifiableSortedSet(new TreeSet<>(included));
        minuteVersions = Collections.unmodifiableSortedMap(new TreeMap<>(minuteVersions));
    }

    /** Whether the rollup keeps its samples apart per tick: a minute's per-second detail. */
    public boolean perTick() {
        return profile.perStep();
    }

    /**
     * A merger for the per-tick detail of a bucket: as {@link #merger}, with every sample group and chunk count kept
     * apart per tick, so that any run of whole ticks can be answered from it exactly.
     */
    public static ProfileMerger detailMerger(long startNanos, long endNanos, int ticks) {
        return new ProfileMerger(ViewFilter.between(startNanos, endNanos),
                new TimeGrid(startNanos, (endNanos - startNanos) / ticks, ticks), true, true);
    }

    /** A merger for a rollup of {@code [startNanos, endNanos)} with {@code ticks} ticks. */
    public static ProfileMerger merger(long startNanos, long endNanos, int ticks) {
        return new ProfileMerger(ViewFilter.between(startNanos, endNanos),
                new TimeGrid(startNanos, (endNanos - startNanos) / ticks, ticks), true);
    }
}
