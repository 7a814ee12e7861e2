package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexedSet;
import chunkrelay.translate.ProfileTypes;

import java.util.List;

/**
 * The tables of a merge: each function, location, stack, thread and link once (an {@link IndexedSet} each, as in the
 * OTLP dictionary), and the sample groups by (stack, thread, link, sample type, period) with their counts and first
 * and last sample ({@link SampleGroupTable}, split per step when asked). The mappings of each input
 * ({@link RequestMapping}, {@link RollupMapping}) look a group up once and add to it. Not thread-safe.
 */
final class MergedTables {
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final boolean keepChunkAttributes;
    private final boolean perStep;
    private final MergedProfile merged = new MergedProfile();
    private final IndexedSet<MergedProfile.Function> functions = IndexedSet.byValue();
    private final IndexedSet<MergedProfile.Location> locations = IndexedSet.byValue();
    private final IndexedSet<int[]> stacks = IndexedSet.byContents();
    private final IndexedSet<MergedProfile.Thread> threads = IndexedSet.byValue();
    private final IndexedSet<MergedProfile.Link> links = IndexedSet.byValue();
    private SampleGroupTable groups;

    /**
     * @param perStep whether sample groups and chunk counts are split per step of {@code grid}
     *                ({@link MergedProfile#perStep()})
     */
    MergedTables(ViewFilter filter, TimeGrid grid, boolean keepChunkAttributes, boolean perStep) {
        if (perStep && grid == null) {
            throw new IllegalArgumentException("a split per step needs a grid");
        }
        this.filter = filter;
        this.grid = grid;
        this.keepChunkAttributes = keepChunkAttributes;
        this.perStep = perStep;
        merged.grid = grid;
        merged.perStep = perStep;
        this.groups = new SampleGroupTable(perStep ? grid : null);
    }

    /** Whether sample groups are split per step of the grid: then every group added must lie within one step. */
    boolean perStep() {
        return perStep;
    }

    ViewFilter filter() {
        return filter;
    }

    TimeGrid grid() {
        return grid;
    }

    /** The step counts of a merged thread (there is a grid). */
    long[] stepCounts(int thread) {
        return merged.stepCounts.get(thread);
    }

    /**
     * The profile merged so far, in canonical order, as a copy: the tables go on taking samples (a merge that is
     * looked at while it grows).
     */
    MergedProfile snapshot() {
        MergedProfile copy = new MergedProfile();
        copy.grid = merged.grid;
        copy.perStep = merged.perStep;
        copy.periodNanos = merged.periodNanos;
        copy.startNanos = merged.startNanos;
        copy.lastSampleNanos = merged.lastSampleNanos;
        copy.endNanos = merged.endNanos;
        addTables(copy);
        merged.stepCounts.forEach(steps -> copy.stepCounts.add(steps.clone()));
        copy.chunkCounts.putAll(merged.chunkCounts);
        merged.chunkStepCounts.forEach((chunk, steps) -> copy.chunkStepCounts.put(chunk, steps.clone()));
        groups.addTo(copy);
        return CanonicalOrder.of(copy);
    }

    /** The merged profile, in canonical order; the tables must not be used after. */
    MergedProfile result() {
        addTables(merged);
        groups.addTo(merged);
        groups = null;
        return CanonicalOrder.of(merged);
    }

    /** The tables' values, in index order, into a profile: a snapshot's copy, or the result once at the end. */
    private void addTables(MergedProfile profile) {
        profile.functions.addAll(functions.values());
        profile.locations.addAll(locations.values());
        profile.stacks.addAll(stacks.values());
        profile.threads.addAll(threads.values());
        profile.links.addAll(links.values());
    }

    /** Makes room for {@code groups} sample groups at least, so that they are not indexed again as the table grows. */
    void expectGroups(int expected) {
        groups.expect(expected);
    }

    /** The index of a sample group, to add samples to ({@link #addSamples}); made empty when new. */
    int group(int stack, int thread, int link, String periodType, long period) {
        return groups.group(stack, thread, link, periodType, period);
    }

    /**
     * Adds samples to a group; split per step, {@code first} and {@code last} must lie in one step of the grid.
     */
    void addSamples(int group, long count, long first, long last) {
        groups.add(group, count, first, last);
        long period = groups.period(group);
        merged.startNanos = Math.min(merged.startNanos, first);
        merged.lastSampleNanos = Math.max(merged.lastSampleNanos, last);
        merged.endNanos = Math.max(merged.endNanos, last + period);
        merged.periodNanos = Math.max(merged.periodNanos, period);
    }

    int thread(MergedProfile.Thread thread) {
        MergedProfile.Thread key = keepChunkAttributes ? thread
                : new MergedProfile.Thread(thread.profilerId(), thread.threadId(), thread.name(), null);
        int known = threads.size();
        int index = threads.indexOf(key);
        if (index == known && grid != null) {
            merged.stepCounts.add(new long[grid.steps()]);
        }
        return index;
    }

    int link(MergedProfile.Link link) {
        return links.indexOf(link);
    }

    /** The merged stack of merged locations; the array is kept, so the caller must not change it after. */
    int stack(int[] mappedLocations) {
        return stacks.indexOf(mappedLocations);
    }

    int location(MergedProfile.Location location) {
        return locations.indexOf(location);
    }

    int function(MergedProfile.Function function) {
        return functions.indexOf(function);
    }

    boolean linkMatches(int link) {
        if (link < 0) {
            return false;
        }
        MergedProfile.Link known = links.get(link);
        return (filter.traceId() == null || filter.traceId().equals(known.traceId()))
                && (filter.spanId() == null || filter.spanId().equals(known.spanId()));
    }

    /**
     * Counts chunks whose first sample was taken at {@code firstNanos}; split per step, that time must lie on the
     * grid.
     */
    void countChunk(ChunkAttributes attributes, long chunks, long firstNanos) {
        merged.chunkCounts.merge(attributes, chunks, Long::sum);
        if (perStep) {
            int step = grid.stepOf(firstNanos);
            if (step < 0) {
                throw new IllegalArgumentException("a chunk's first sample " + firstNanos + " is off the grid");
            }
            merged.chunkStepCounts.computeIfAbsent(attributes, a -> new long[grid.steps()])[step] += chunks;
        }
    }

    /**
     * The merged location of a frame that stands for an empty stack, named as the translation names it
     * ({@link ProfileTypes#emptyStackFrame}): OTLP archived before the translation wrote that frame has empty stacks.
     */
    int emptyStackLocation(String periodType) {
        int function = function(new MergedProfile.Function(ProfileTypes.emptyStackFrame(periodType), null, null));
        return location(new MergedProfile.Location(0, List.of(new MergedProfile.Line(function, 0))));
    }
}
