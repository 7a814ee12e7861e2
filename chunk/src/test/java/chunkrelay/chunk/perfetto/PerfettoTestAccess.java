package chunkrelay.chunk.perfetto;

/** Reaches the package's helpers from tests in other packages. */
public final class PerfettoTestAccess {
    private PerfettoTestAccess() {
    }

    public static String debugId(byte[] buildId) {
        return PerfettoFrames.debugId(buildId);
    }
}
