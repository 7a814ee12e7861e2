package chunkrelay.translate.view;

/**
 * The steps of a profile split per step ({@link MergedProfile#perStep()}): for each sample group, in the order of the
 * profile's groups, a sparse list of the steps of the grid its samples lie in, sorted by step, each with how many
 * samples it holds and its first and last sample's time as offsets from the step's start. Held in primitive arrays,
 * one entry per group and step (no object per entry), which is what keeps an open minute of a fleet small: the whole
 * group (count, first, last) is the profile's {@link MergedProfile.SampleGroup}, its entries say how it splits.
 * Immutable once made.
 */
final class SampleSteps {
    /** Group {@code g}'s entries are {@code [starts[g], starts[g + 1])}. */
    private final int[] starts;
    private final int[] steps;
    private final long[] counts;
    private final int[] firstOffsets;
    private final int[] lastOffsets;

    SampleSteps(int[] starts, int[] steps, long[] counts, int[] firstOffsets, int[] lastOffsets) {
        this.starts = starts;
        this.steps = steps;
        this.counts = counts;
        this.firstOffsets = firstOffsets;
        this.lastOffsets = lastOffsets;
    }

    /** How many groups the entries are of. */
    int groups() {
        return starts.length - 1;
    }

    /** How many (group, step) entries there are. */
    int entries() {
        return starts[starts.length - 1];
    }

    /** The first entry of a group. */
    int from(int group) {
        return starts[group];
    }

    /** The entry after a group's last. */
    int to(int group) {
        return starts[group + 1];
    }

    int step(int entry) {
        return steps[entry];
    }

    long count(int entry) {
        return counts[entry];
    }

    /** The entry's first sample's time, on {@code grid} (the profile's). */
    long firstNanos(int entry, TimeGrid grid) {
        return stepStart(grid, steps[entry]) + firstOffsets[entry];
    }

    long lastNanos(int entry, TimeGrid grid) {
        return stepStart(grid, steps[entry]) + lastOffsets[entry];
    }

    /** The entry's first sample's time after its step's start. */
    int firstOffset(int entry) {
        return firstOffsets[entry];
    }

    int lastOffset(int entry) {
        return lastOffsets[entry];
    }

    static long stepStart(TimeGrid grid, int step) {
        return grid.originNanos() + step * grid.stepNanos();
    }

    /** The same entries with the groups in a new order: the group at position {@code p} is old group {@code order[p]}. */
    SampleSteps reordered(int[] order) {
        int[] newStarts = new int[starts.length];
        int[] newSteps = new int[steps.length];
        long[] newCounts = new long[counts.length];
        int[] newFirst = new int[firstOffsets.length];
        int[] newLast = new int[lastOffsets.length];
        int at = 0;
        for (int position = 0; position < order.length; position++) {
            int from = starts[order[position]];
            int length = starts[order[position] + 1] - from;
            newStarts[position] = at;
            System.arraycopy(steps, from, newSteps, at, length);
            System.arraycopy(counts, from, newCounts, at, length);
            System.arraycopy(firstOffsets, from, newFirst, at, length);
            System.arraycopy(lastOffsets, from, newLast, at, length);
            at += length;
        }
        newStarts[order.length] = at;
        return new SampleSteps(newStarts, newSteps, newCounts, newFirst, newLast);
    }

    /** What the arrays take on the heap. */
    long heapBytes() {
        return HeapEstimate.array(4, starts.length) + HeapEstimate.array(4, steps.length)
                + HeapEstimate.array(8, counts.length) + HeapEstimate.array(4, firstOffsets.length)
                + HeapEstimate.array(4, lastOffsets.length) + HeapEstimate.OBJECT + 5 * HeapEstimate.REFERENCE;
    }
}
