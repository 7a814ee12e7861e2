package chunkrelay.chunk.art;

/**
 * The trace cannot be read ({@link #tooLarge()} false: Relay's {@code profiling_invalid_sampled_profile}) or would
 * expand beyond this relay's bounds ({@code profiling_exceed_size_limit}). Stackless: an expected outcome.
 */
public final class ArtTraceException extends Exception {
    private final boolean tooLarge;

    private ArtTraceException(String detail, boolean tooLarge) {
        super(detail, null, false, false);
        this.tooLarge = tooLarge;
    }

    static ArtTraceException invalid(String detail) {
        return new ArtTraceException(detail, false);
    }

    static ArtTraceException tooLarge(String detail) {
        return new ArtTraceException(detail, true);
    }

    public boolean tooLarge() {
        return tooLarge;
    }
}
