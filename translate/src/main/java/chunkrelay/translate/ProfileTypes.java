package chunkrelay.translate;

import chunkrelay.chunk.SampledTime;

/**
 * How a profile says what its samples measured, and the frame a tick without a stack is shown under. Every profile's
 * {@code sample_type} is {@code samples}/{@code count} (each timestamp is one tick); the {@code period_type} says
 * what a tick stands for: {@code wall}/{@code nanoseconds} for a wall-clock profiler, {@code cpu}/{@code nanoseconds}
 * for a CPU-time one, as pprof's CPU profiles and async-profiler's OTLP output say it. Consumers read the pair: Pyroscope
 * files {@code samples:count} over {@code cpu:nanoseconds} as {@code process_cpu} (CPU time: count × period) and
 * any other period type under its own name ({@code wall}).
 */
public final class ProfileTypes {
    public static final String SAMPLES = "samples";
    public static final String COUNT = "count";
    public static final String NANOSECONDS = "nanoseconds";
    /** Period type of wall-clock profiles: a tick is a period of time, running or waiting. */
    public static final String WALL = "wall";
    /** Period type of CPU-time profiles: a tick is a period the thread ran on a CPU. */
    public static final String CPU = "cpu";
    /**
     * The one frame of a wall-clock tick whose stack is empty: the thread ran no code the profiler can see (the
     * browser's JS self-profiling API records idle time so; async-profiler's JVM threads without Java frames).
     */
    public static final String IDLE_FRAME = "[idle]";
    /** The one frame of a CPU-time tick whose stack is empty: the thread ran, but no frame of it was recovered. */
    public static final String NO_STACK_FRAME = "[no stack]";

    private ProfileTypes() {
    }

    /** The {@code period_type} of a chunk's profiler. */
    public static String periodType(SampledTime sampledTime) {
        return sampledTime == SampledTime.CPU ? CPU : WALL;
    }

    /**
     * The name of the frame standing for an empty stack in a profile of this period type: nothing but the CPU period
     * type means CPU time, so profiles of other types (the wall-clock ones) are idle when they show no frame.
     */
    public static String emptyStackFrame(String periodType) {
        return CPU.equals(periodType) ? NO_STACK_FRAME : IDLE_FRAME;
    }
}
