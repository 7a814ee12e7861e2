package chunkrelay.chunk.art;

/**
 * The interval and bounds of an ART trace's replay, named once for the replay loop ({@link ArtSampleReplay}), the
 * interval estimate ({@link Batches}) and the samples' emission ({@link SampleEmission}).
 */
public final class ArtLimits {
    /** The Android SDK's default {@code profilingTracesHz} of 101: 9 900 µs. */
    public static final long DEFAULT_INTERVAL_MICROS = 1_000_000 / 101;
    /** An estimated interval below this is a method trace, not sampling: the default is used instead. */
    static final long METHOD_TRACING_BELOW_MICROS = 100;
    /** Frames kept per sample, leaf side; deeper stacks lose their outermost frames. */
    static final int MAX_STACK_DEPTH = 1024;
    static final int MIN_SAMPLES = 1 << 18;
    static final int MAX_SAMPLES = 1 << 21;
    /** Frame references over all distinct sampled stacks; beyond it the chunk is too large. */
    static final int MAX_STACK_FRAMES = 1 << 22;

    private ArtLimits() {
    }
}
