package chunkrelay.chunk.perfetto;

/** A running estimate of heap bytes held for one conversion, refused past its limit. */
final class MemoryBudget {
    private final String what;
    private final long limit;
    private long used;

    MemoryBudget(String what, long limit) {
        this.what = what;
        this.limit = limit;
    }

    void add(long bytes) throws PerfettoTraceException {
        used += bytes;
        if (used > limit) {
            throw new PerfettoTraceException(PerfettoTraceException.Kind.TOO_LARGE,
                    what + " would take more than " + limit / (1024 * 1024) + " MiB");
        }
    }

    void release(long bytes) {
        used -= bytes;
    }
}
