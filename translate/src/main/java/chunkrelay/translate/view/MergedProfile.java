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
