package chunkrelay.chunk.art;

/** The {@code clock=} of a trace header: which time fields each record carries. */
public enum ArtClock {
    /** Version 1 (Dalvik): one field, µs since the trace start. */
    GLOBAL,
    /** One field: the thread's CPU time in µs. */
    THREAD_CPU,
    /** One field: wall time in µs since the trace start. */
    WALL,
    /** Two fields: thread CPU time first, then wall time. */
    DUAL
}
