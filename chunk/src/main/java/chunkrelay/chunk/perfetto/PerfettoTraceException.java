package chunkrelay.chunk.perfetto;

/** A Perfetto trace this relay refuses, with which of Relay's reasons applies. */
public final class PerfettoTraceException extends Exception {
    /** Relay's outcome for the refusal. */
    public enum Kind {
        /** Not a trace (bad protobuf), or no clock snapshot to place it in time: profiling_invalid_sampled_profile. */
        INVALID,
        /** Past one of {@link PerfettoLimits}: profiling_exceed_size_limit. */
        TOO_LARGE,
        /** No PerfSample with a resolvable callstack: profiling_not_enough_samples. */
        NO_SAMPLES
    }

    private final Kind kind;

    PerfettoTraceException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
