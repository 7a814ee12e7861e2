package chunkrelay.chunk;

/**
 * What one tick of a chunk's profiler stands for. The format a chunk came in says it, since each format has one
 * profiler behind it (docs/how-it-works.md, "What each source samples", gives the sources).
 */
public enum SampledTime {
    /**
     * Every thread is sampled at every tick of a timer, running or waiting: a tick is a period of wall-clock time.
     * Sample format v2 (async-profiler's {@code event=wall}, V8's CPU profiler, JS self-profiling, Python's and
     * Cocoa's sampler threads) and Android ART method traces ({@code Debug.startMethodTracingSampling}).
     */
    WALL_CLOCK,
    /**
     * A thread is sampled only while it runs on a CPU, once per period of CPU time: Android Perfetto stack sampling
     * (perf's {@code cpu-clock} timebase).
     */
    CPU
}
