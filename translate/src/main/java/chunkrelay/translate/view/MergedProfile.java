package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One profile merged from the OTLP forms of chunks or from rollups of them: functions, locations and stacks
 * deduplicated, threads keyed by profiler and thread (and, in a rollup, the chunk attributes the filters need), and
 * one {@link SampleGroup} per (stack, thread, link, sample type, period) holding how many samples it has and when the first and
 * last of them were taken (split per step, each group also lists its steps: {@link SampleSteps}). Sums of counts, minima and maxima are associative, so a profile merged from rollups
 * equals the one merged from the chunks they hold; per-sample timestamps are not kept, which is what lets a week's
 * answer fit in memory. Optionally it counts samples per thread on a {@link TimeGrid}, for timelines. Built by
 * {@link ProfileMerger}, in canonical order (tables sorted by content), so that every writer's output depends on
 * what was merged and not on the order it was merged in; read by the writers.
 */
public final class MergedProfile {
    /** A function: its name (qualified for JVM frames), system name and file. */
    public record Function(String name, String systemName, String file) {
    }

    /** One line of a location: a function and a line number (0 when unknown). */
    public record Line(int function, long line) {
    }

    /** A location: its address (0 when symbolic) and lines, the innermost (inlined) first. */
    public record Location(long address, List<Line> lines) {
    }

    /**
     * A thread of one profiler; in a rollup also the chunk attributes of the chunks its samples came from (null in
     * answers, which do not split a thread by them).
     */
    public record Thread(String profilerId, String threadId, String name, ChunkAttributes chunk) {
        public Thread(String profilerId, String threadId, String name) {
            this(profilerId, threadId, name, null);
        }

        /** A label for people: the name, with the id when there is one. */
        public String label() {
            return name == null ? "thread " + threadId : name + " (" + threadId + ")";
        }
    }

    /** A link to a span: 32 and 16 lowercase hex digits. */
    public record Link(String traceId, String spanId) {
    }

    /**
     * Samples of one stack on one thread with one link (-1 for none).
     *
     * @param periodType  what one sample stands for, the period type of the chunks they came from
     *                    ({@code wall} or {@code cpu}, {@link chunkrelay.translate.ProfileTypes}): samples of different
     *                    types are never one group
     * @param periodNanos the sampling period of the chunks they came from, which one sample stands for
     * @param count       how many samples
     * @param firstNanos  the earliest sample's time (Unix nanoseconds)
     * @param lastNanos   the latest sample's time
     */
    public record SampleGroup(int stack, int thread, int link, String periodType, long periodNanos, long count,
                              long firstNanos, long lastNanos) {
    }

    final List<Function> functions = new ArrayList<>();
    final List<Location> locations = new ArrayList<>();
    /** Location indices, leaf first. */
    final List<int[]> stacks = new ArrayList<>();
    final List<Thread> threads = new ArrayList<>();
    final List<Link> links = new ArrayList<>();
    final List<SampleGroup> samples = new ArrayList<>();
    /** Per thread, samples per step of {@link #grid}; empty without a grid. */
    final List<long[]> stepCounts = new ArrayList<>();
    /** Chunks counted (those whose first sample lies in the merged range), by their attributes. */
    final Map<ChunkAttributes, Long> chunkCounts = new TreeMap<>();
    /**
     * Split per step of {@link #grid}: each sample group lists the steps its samples lie in ({@link #steps}), and the
     * chunks are also counted per step of their first sample ({@link #chunkStepCounts}), so that any run of whole
     * steps can be taken out exactly.
     */
    boolean perStep;
    /** With {@link #perStep}: the chunks counted per step of their first sample, by their attributes. */
    final Map<ChunkAttributes, long[]> chunkStepCounts = new TreeMap<>();
    /** With {@link #perStep}: the steps of each of {@link #samples}, in its order; null when not split. */
    SampleSteps steps;
    TimeGrid grid;
    long periodNanos;
    long startNanos = Long.MAX_VALUE;
    long lastSampleNanos = Long.MIN_VALUE;
    long endNanos = Long.MIN_VALUE;

    MergedProfile() {
    }

    public List<Function> functions() {
        return Collections.unmodifiableList(functions);
    }

    public List<Location> locations() {
        return Collections.unmodifiableList(locations);
    }

    public List<int[]> stacks() {
        return Collections.unmodifiableList(stacks);
    }

    public List<Thread> threads() {
        return Collections.unmodifiableList(threads);
    }

    public List<Link> links() {
        return Collections.unmodifiableList(links);
    }

    /** The sample groups, each whole (split per step, {@link #stepEntries()} says how they split). */
    public List<SampleGroup> samples() {
        return Collections.unmodifiableList(samples);
    }

    /** Split per step, how many (sample group, step) entries there are; 0 when not split. */
    public int stepEntries() {
        return steps == null ? 0 : steps.entries();
    }

    /** The grid the step counts are on; null when none was asked for. */
    public TimeGrid grid() {
        return grid;
    }

    /** A thread's samples per step of {@link #grid()} (a copy is not made: do not change it). */
    public long[] stepCounts(int thread) {
        return stepCounts.get(thread);
    }

    /**
     * Whether the samples are split per step of {@link #grid()}: each sample group keeps its count, first and last
     * sample per step, and the chunks are counted per step, so that a run of whole steps is exactly the samples and
     * chunks within it.
     */
    public boolean perStep() {
        return perStep;
    }

    /** The chunks counted, by their attributes (a chunk counts where its first sample lies). */
    public Map<ChunkAttributes, Long> chunkCounts() {
        return Collections.unmodifiableMap(chunkCounts);
    }

    /** The largest sampling period of the merged chunks (pprof's merge rule). */
    public long periodNanos() {
        return periodNanos;
    }

    /** The first sample's time; {@code Long.MAX_VALUE} when there is none. */
    public long startNanos() {
        return startNanos;
    }

    /** The last sample's time; {@code Long.MIN_VALUE} when there is none. */
    public long lastSampleNanos() {
        return lastSampleNanos;
    }

    /** The last sample's time plus its period. */
    public long endNanos() {
        return endNanos;
    }

    /**
     * The period types of the merged samples, in order: one for a range of one kind of profiler, {@code cpu} and
     * {@code wall} when a range holds both (an Android fleet with Perfetto and ART chunks); the writers keep them
     * apart.
     */
    public SortedSet<String> sampleTypes() {
        SortedSet<String> types = new TreeSet<>();
        for (SampleGroup group : samples) {
            types.add(group.periodType());
        }
        return types;
    }

    /** The chunks whose first sample lies in the merged range and that pass the chunk filters. */
    public int chunks() {
        long count = 0;
        for (long chunksOfAttributes : chunkCounts.values()) {
            count += chunksOfAttributes;
        }
        return (int) Math.min(Integer.MAX_VALUE, count);
    }

    /**
     * What this profile holds on the heap, roughly: its tables, the strings they hold, its counts per step and, split
     * per step, the steps' columns. Strings shared with other profiles are counted here too.
     */
    public long estimatedHeapBytes() {
        return HeapEstimate.of(this);
    }

    public long sampleCount() {
        long count = 0;
        for (SampleGroup group : samples) {
            count += group.count();
        }
        return count;
    }
}
