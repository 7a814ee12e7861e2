package chunkrelay.translate.view;

import chunkrelay.translate.ProfileTypes;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables of a merge: each function, location, stack, thread and link once (an indexed set, as the OTLP dictionary
 * is), and the sample groups by (stack, thread, link, sample type, period) with their counts and first and last sample
 * ({@link SampleGroupTable}, split per step when asked). The mappings of each input ({@link RequestMapping},
 * {@link RollupMapping}) look a group up once and add to it. Not thread-safe.
 */
final class MergedTables {
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final boolean keepChunkAttributes;
    private final boolean perStep;
    private final MergedProfile merged = new MergedProfile();
    private final Map<MergedProfile.Function, Integer> functions = new HashMap<>();
    private final Map<MergedProfile.Location, Integer> locations = new HashMap<>();
    private final Map<StackKey, Integer> stacks = new HashMap<>();
    private final Map<MergedProfile.Thread, Integer> threads = new HashMap<>();
    private final Map<MergedProfile.Link, Integer> links = new HashMap<>();
    private SampleGroupTable groups;

    private record StackKey(int[] locations) {
        @Override
        public boolean equals(Object other) {
            return other instanceof StackKey key && Arrays.equals(locations, key.locations);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(locations);
        }
    }

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
        copy.functions.addAll(merged.functions);
        copy.locations.addAll(merged.locations);
        copy.stacks.addAll(merged.stacks);
        copy.threads.addAll(merged.threads);
        copy.links.addAll(merged.links);
        merged.stepCounts.forEach(steps -> copy.stepCounts.add(steps.clone()));
        copy.chunkCounts.putAll(merged.chunkCounts);
        merged.chunkStepCounts.forEach((chunk, steps) -> copy.chunkStepCounts.put(chunk, steps.clone()));
        groups.addTo(copy);
        return CanonicalOrder.of(copy);
    }

    /** The merged profile, in canonical order; the tables must not be used after. */
    MergedProfile result() {
        groups.addTo(merged);
        groups = null;
        return CanonicalOrder.of(merged);
    }

    /** The index of a sample group, to add samples to ({@link #addSamples}); made empty when new. */
    /** Makes room for {@code groups} sample groups at least, so that they are not indexed again as the table grows. */
    void expectGroups(int expected) {
        groups.expect(expected);
    }

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
        return threads.computeIfAbsent(key, t -> {
            merged.threads.add(t);
            if (grid != null) {
                merged.stepCounts.add(new long[grid.steps()]);
            }
            return merged.threads.size() - 1;
        });
    }

    int link(MergedProfile.Link link) {
        return links.computeIfAbsent(link, k -> {
            merged.links.add(k);
            return merged.links.size() - 1;
        });
    }

    int stack(int[] mappedLocations) {
        return stacks.computeIfAbsent(new StackKey(mappedLocations), k -> {
            merged.stacks.add(k.locations());
            return merged.stacks.size() - 1;
        });
    }

    int location(MergedProfile.Location location) {
        return locations.computeIfAbsent(location, k -> {
            merged.locations.add(k);
            return merged.locations.size() - 1;
        });
    }

    int function(MergedProfile.Function function) {
        return functions.computeIfAbsent(function, k -> {
            merged.functions.add(k);
            return merged.functions.size() - 1;
        });
    }

    boolean linkMatches(int link) {
        if (link < 0) {
            return false;
        }
        MergedProfile.Link known = merged.links.get(link);
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

    /** A mapping of {@code length} input indexes, none mapped yet. */
    static int[] unmapped(int length) {
        int[] array = new int[length];
        Arrays.fill(array, -1);
        return array;
    }
}
