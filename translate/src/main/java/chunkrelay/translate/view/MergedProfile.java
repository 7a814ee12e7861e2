package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One profile merged from the OTLP forms of several chunks: functions, locations and stacks deduplicated across
 * chunks, threads keyed by (profiler, thread id), and one {@link SampleGroup} per (stack, thread, link) holding the
 * timestamps of its samples. Built by {@link ProfileMerger}; read by the writers.
 */
public final class MergedProfile {
    /**
     * The one frame of a sample whose stack is empty (idle time in JavaScript's self-profiling API, idle threads
     * elsewhere): every export and the page show such samples under this name.
     */
    public static final String NO_STACK = "(no stack)";

    /** A function: its name (qualified for JVM frames), system name and file. */
    public record Function(String name, String systemName, String file) {
    }

    /** One line of a location: a function and a line number (0 when unknown). */
    public record Line(int function, long line) {
    }

    /** A location: its address (0 when symbolic) and lines, the innermost (inlined) first. */
    public record Location(long address, List<Line> lines) {
    }

    /** A thread of one profiler. */
    public record Thread(String profilerId, String threadId, String name) {
        /** A label for people: the name, with the id when there is one. */
        public String label() {
            return name == null ? "thread " + threadId : name + " (" + threadId + ")";
        }
    }

    /** A link to a span: 32 and 16 lowercase hex digits. */
    public record Link(String traceId, String spanId) {
    }

    /**
     * Samples of one stack on one thread with one link (-1 for none), and their timestamps (Unix nanoseconds).
     *
     * @param periodNanos the sampling period of the chunk they came from, which one sample stands for
     */
    public record SampleGroup(int stack, int thread, int link, long periodNanos, long[] timestamps) {
    }

    final List<Function> functions = new ArrayList<>();
    final List<Location> locations = new ArrayList<>();
    /** Location indices, leaf first. */
    final List<int[]> stacks = new ArrayList<>();
    final List<Thread> threads = new ArrayList<>();
    final List<Link> links = new ArrayList<>();
    final List<SampleGroup> samples = new ArrayList<>();
    long periodNanos;
    long startNanos = Long.MAX_VALUE;
    long endNanos = Long.MIN_VALUE;
    int chunks;
    /** The location of the {@link #NO_STACK} frame, -1 while no sample needed it. */
    int noStackLocation = -1;

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

    public List<SampleGroup> samples() {
        return Collections.unmodifiableList(samples);
    }

    /** The largest sampling period of the merged chunks (pprof's merge rule). */
    public long periodNanos() {
        return periodNanos;
    }

    /** The first sample's time; {@code Long.MAX_VALUE} when there is none. */
    public long startNanos() {
        return startNanos;
    }

    /** The last sample's time plus its period. */
    public long endNanos() {
        return endNanos;
    }

    /**
     * Whether a merged stack stands for an empty one (its only location is the {@link #NO_STACK} frame); the OTLP
     * export writes such samples with their original empty stack.
     */
    public boolean isNoStack(int stack) {
        int[] locations = stacks.get(stack);
        return locations.length == 1 && locations[0] == noStackLocation;
    }

    /** Whether a location is the {@link #NO_STACK} frame's. */
    public boolean isNoStackLocation(int location) {
        return location == noStackLocation && noStackLocation >= 0;
    }

    /** Whether a function is the {@link #NO_STACK} frame's. */
    public boolean isNoStackFunction(int function) {
        return noStackLocation >= 0 && locations.get(noStackLocation).lines().get(0).function() == function;
    }

    public int chunks() {
        return chunks;
    }

    public long sampleCount() {
        long count = 0;
        for (SampleGroup group : samples) {
            count += group.timestamps().length;
        }
        return count;
    }
}
