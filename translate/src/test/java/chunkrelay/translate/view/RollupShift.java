package chunkrelay.translate.view;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A rollup moved in time, for the benchmark's week of rollups made from one hour it built: every time in it (the
 * bucket, the tick grid, the first and last sample of each group, the minute versions of an hour's or a day's rollup)
 * shifted by the same amount, every count kept. A test fixture of the views' package (its tables are package-private
 * there), shared with the bench through translate's test jar: nothing in the relay moves a rollup.
 */
public final class RollupShift {
    private RollupShift() {
    }

    /** The rollup's samples as if taken {@code nanos} later (earlier when negative). */
    public static Rollup shifted(Rollup rollup, long nanos) {
        MergedProfile from = rollup.profile();
        MergedProfile to = new MergedProfile();
        to.functions.addAll(from.functions);
        to.locations.addAll(from.locations);
        to.stacks.addAll(from.stacks);
        to.threads.addAll(from.threads);
        to.links.addAll(from.links);
        for (MergedProfile.SampleGroup group : from.samples) {
            to.samples.add(new MergedProfile.SampleGroup(group.stack(), group.thread(), group.link(),
                    group.periodType(), group.periodNanos(), group.count(), group.firstNanos() + nanos, group.lastNanos() + nanos));
        }
        // tick counts are relative to the grid's origin, which moves with them
        to.stepCounts.addAll(from.stepCounts);
        to.chunkCounts.putAll(from.chunkCounts);
        to.grid = new TimeGrid(from.grid.originNanos() + nanos, from.grid.stepNanos(), from.grid.steps());
        to.periodNanos = from.periodNanos;
        to.startNanos = from.startNanos + nanos;
        to.lastSampleNanos = from.lastSampleNanos + nanos;
        to.endNanos = from.endNanos + nanos;
        SortedMap<Long, Long> minuteVersions = new TreeMap<>();
        rollup.minuteVersions().forEach((minute, version) -> minuteVersions.put(minute + nanos, version));
        // the included chunk names stay: they only match late entries, and a shifted hour has none
        return new Rollup(rollup.startNanos() + nanos, rollup.endNanos() + nanos, to, rollup.included(),
                minuteVersions);
    }
}
