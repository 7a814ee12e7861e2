package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The sample groups of a merge as they grow: each (stack, thread, link, sample type, period) once, looked up once by
 * its key ({@link GroupSlots}) and then added to by index, with its count and first and last sample in primitive
 * columns. Split per step of a grid, each group also keeps its steps as a list of entries sorted by step, linked
 * through primitive columns shared by all groups (an entry per group and step, no object per entry): the samples of
 * one input mostly come in time order, so an entry is nearly always added at its group's end or merged into its last
 * one. Not thread-safe.
 */
final class SampleGroupTable {
    private static final int INITIAL = 16;
    private static final int KEY = 6;

    /** The grid the groups are split on, or null when they are not split. */
    private final TimeGrid grid;
    private final GroupSlots index = new GroupSlots(this::matches);
    /** The sample types seen, by number: a merge has one or two, so a group keeps the number. */
    private final List<String> periodTypeNames = new ArrayList<>(2);
    private int groups;
    /** The group the last lookup gave, whose next is tried first. */
    private int lastFound = -1;
    /**
     * Each group's key, its fields side by side ({@link #KEY} ints per group: stack, thread, link, sample type and
     * the period's two halves), so that matching a key probed at random reads one cache line, not one per field.
     */
    private int[] keys = new int[INITIAL * KEY];
    private long[] counts = new long[INITIAL];
    private long[] firsts = new long[INITIAL];
    private long[] lasts = new long[INITIAL];
    /** Split per step: each group's first and last entry. */
    private int[] heads;
    private int[] tails;
    private int entries;
    private int[] entrySteps;
    private long[] entryCounts;
    private int[] entryFirsts;
    private int[] entryLasts;
    private int[] entryNexts;

    /** @param grid the grid to split the groups on, or null to keep each group whole */
    SampleGroupTable(TimeGrid grid) {
        if (grid != null && grid.stepNanos() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a split per step needs steps shorter than 2^31 ns");
        }
        this.grid = grid;
        if (grid != null) {
            heads = new int[INITIAL];
            tails = new int[INITIAL];
            entrySteps = new int[INITIAL];
            entryCounts = new long[INITIAL];
            entryFirsts = new int[INITIAL];
            entryLasts = new int[INITIAL];
            entryNexts = new int[INITIAL];
        }
    }

    /** Makes room for {@code expected} groups at least. */
    void expect(int expected) {
        if (expected > counts.length) {
            resize(expected);
        }
        index.expect(expected);
    }

    /** The index of a group, made (empty) when it is new. */
    int group(int stack, int thread, int link, String periodType, long period) {
        int type = periodTypeNumber(periodType);
        // rollups list their groups in canonical order, which is the order the merged groups were made in as far as
        // they share them: the group after the last one found is most often the one asked for, and it is read from
        // the columns in order where the slots are read at random
        int next = lastFound + 1;
        if (next < groups && matches(next, stack, thread, link, type, period)) {
            lastFound = next;
            return next;
        }
        int known = index.find(stack, thread, link, type, period);
        if (known >= 0) {
            lastFound = known;
            return known;
        }
        if (groups == counts.length) {
            resize(grown(groups));
        }
        int group = groups++;
        int key = group * KEY;
        keys[key] = stack;
        keys[key + 1] = thread;
        keys[key + 2] = link;
        keys[key + 3] = type;
        keys[key + 4] = (int) period;
        keys[key + 5] = (int) (period >>> 32);
        firsts[group] = Long.MAX_VALUE;
        lasts[group] = Long.MIN_VALUE;
        if (grid != null) {
            heads[group] = -1;
            tails[group] = -1;
        }
        index.put(group, stack, thread, link, type, period);
        lastFound = group;
        return group;
    }

    private void resize(int capacity) {
        keys = Arrays.copyOf(keys, capacity * KEY);
        counts = Arrays.copyOf(counts, capacity);
        firsts = Arrays.copyOf(firsts, capacity);
        lasts = Arrays.copyOf(lasts, capacity);
        if (grid != null) {
            heads = Arrays.copyOf(heads, capacity);
            tails = Arrays.copyOf(tails, capacity);
        }
    }

    private int periodTypeNumber(String periodType) {
        for (int type = 0; type < periodTypeNames.size(); type++) {
            if (Objects.equals(periodTypeNames.get(type), periodType)) {
                return type;
            }
        }
        periodTypeNames.add(periodType);
        return periodTypeNames.size() - 1;
    }

    private boolean matches(int group, int stack, int thread, int link, int periodType, long period) {
        int key = group * KEY;
        return keys[key] == stack && keys[key + 1] == thread && keys[key + 2] == link
                && keys[key + 3] == periodType && keys[key + 4] == (int) period
                && keys[key + 5] == (int) (period >>> 32);
    }

    long period(int group) {
        int key = group * KEY;
        return (keys[key + 4] & 0xFFFFFFFFL) | (long) keys[key + 5] << 32;
    }

    /**
     * Adds samples to a group; split per step, {@code first} and {@code last} must lie in one step of the grid.
     */
    void add(int group, long count, long first, long last) {
        if (grid != null) {
            int step = grid.stepOf(first);
            if (step < 0 || step != grid.stepOf(last)) {
                throw new IllegalArgumentException("samples " + first + ".." + last + " do not lie in one step");
            }
            long start = SampleSteps.stepStart(grid, step);
            addEntry(group, step, count, (int) (first - start), (int) (last - start));
        }
        counts[group] += count;
        firsts[group] = Math.min(firsts[group], first);
        lasts[group] = Math.max(lasts[group], last);
    }

    /** Adds to the group's entry of a step, made where it sorts: nearly always after the group's last. */
    private void addEntry(int group, int step, long count, int firstOffset, int lastOffset) {
        int tail = tails[group];
        if (tail >= 0 && entrySteps[tail] == step) {
            merge(tail, count, firstOffset, lastOffset);
            return;
        }
        if (tail >= 0 && entrySteps[tail] < step) {
            int entry = newEntry(step, count, firstOffset, lastOffset, -1);
            entryNexts[tail] = entry;
            tails[group] = entry;
            return;
        }
        int previous = -1;
        int at = heads[group];
        while (at >= 0 && entrySteps[at] < step) {
            previous = at;
            at = entryNexts[at];
        }
        if (at >= 0 && entrySteps[at] == step) {
            merge(at, count, firstOffset, lastOffset);
            return;
        }
        int entry = newEntry(step, count, firstOffset, lastOffset, at);
        if (previous < 0) {
            heads[group] = entry;
        } else {
            entryNexts[previous] = entry;
        }
        if (at < 0) {
            tails[group] = entry;
        }
    }

    private void merge(int entry, long count, int firstOffset, int lastOffset) {
        entryCounts[entry] += count;
        entryFirsts[entry] = Math.min(entryFirsts[entry], firstOffset);
        entryLasts[entry] = Math.max(entryLasts[entry], lastOffset);
    }

    private int newEntry(int step, long count, int firstOffset, int lastOffset, int next) {
        if (entries == entrySteps.length) {
            int capacity = grown(entries);
            entrySteps = Arrays.copyOf(entrySteps, capacity);
            entryCounts = Arrays.copyOf(entryCounts, capacity);
            entryFirsts = Arrays.copyOf(entryFirsts, capacity);
            entryLasts = Arrays.copyOf(entryLasts, capacity);
            entryNexts = Arrays.copyOf(entryNexts, capacity);
        }
        int entry = entries++;
        entrySteps[entry] = step;
        entryCounts[entry] = count;
        entryFirsts[entry] = firstOffset;
        entryLasts[entry] = lastOffset;
        entryNexts[entry] = next;
        return entry;
    }

    /** Half as much again: the columns of a fleet's minute are large, so they grow by less than doubling. */
    private static int grown(int size) {
        return Math.max(INITIAL, size + (size >> 1));
    }

    /**
     * Appends the groups to a profile's samples (which must be empty) and, split per step, sets its steps: the
     * table is not changed.
     */
    void addTo(MergedProfile profile) {
        for (int group = 0; group < groups; group++) {
            int key = group * KEY;
            profile.samples.add(new MergedProfile.SampleGroup(keys[key], keys[key + 1], keys[key + 2],
                    periodTypeNames.get(keys[key + 3]), period(group), counts[group], firsts[group],
                    lasts[group]));
        }
        if (grid == null) {
            return;
        }
        int[] starts = new int[groups + 1];
        int[] steps = new int[entries];
        long[] stepCounts = new long[entries];
        int[] firstOffsets = new int[entries];
        int[] lastOffsets = new int[entries];
        int at = 0;
        for (int group = 0; group < groups; group++) {
            starts[group] = at;
            for (int entry = heads[group]; entry >= 0; entry = entryNexts[entry]) {
                steps[at] = entrySteps[entry];
                stepCounts[at] = entryCounts[entry];
                firstOffsets[at] = entryFirsts[entry];
                lastOffsets[at] = entryLasts[entry];
                at++;
            }
        }
        starts[groups] = at;
        profile.steps = new SampleSteps(starts, steps, stepCounts, firstOffsets, lastOffsets);
    }
}
