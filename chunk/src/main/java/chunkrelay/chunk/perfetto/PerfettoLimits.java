package chunkrelay.chunk.perfetto;

/**
 * The bounds Relay puts on a Perfetto trace ({@code relay_profiling::perfetto::convert::consts}); past any of them a
 * trace is {@code profiling_exceed_size_limit}. The two memory budgets are this relay's estimates of Java heap bytes.
 */
final class PerfettoLimits {
    /** PerfSample packets; the trace may hold one fewer. */
    static final int MAX_SAMPLES = 100_000;
    /** Top-level packets: the samples plus room for clock snapshots, interned data and other metadata. */
    static final int MAX_TRACE_PACKETS = MAX_SAMPLES + 10_000;
    /** Encoded bytes of one packet, checked before it is decoded. */
    static final int MAX_TRACE_PACKET_BYTES = 4 * 1024 * 1024;
    static final int MAX_CALLSTACK_DEPTH = 1000;
    /** A mapping with more path segments than this has no path. */
    static final int MAX_PATH_SEGMENTS = 100;
    static final int MAX_UNIQUE_FRAMES = 1_000_000;
    static final int MAX_SEQUENCE_IDS = 64;
    /** Interned tables and caches of all sequences (Relay: 15 MiB of its own structures). */
    static final long MAX_WORK_BYTES = 32L * 1024 * 1024;
    /** Frames, stacks and samples of the converted profile (Relay: 40 MiB). */
    static final long MAX_RESULT_BYTES = 40L * 1024 * 1024;

    private PerfettoLimits() {
    }
}
