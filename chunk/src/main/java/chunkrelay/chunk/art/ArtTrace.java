package chunkrelay.chunk.art;

import chunkrelay.chunk.primitive.IntIntMap;

import java.nio.charset.StandardCharsets;

/**
 * A parsed ART method trace: the header values, the thread and method tables, and the records, read in place from
 * the decoded bytes (nothing is copied per record; table strings are made only when asked for).
 */
public final class ArtTrace {
    private final byte[] data;
    private final int version;
    private final ArtClock clock;
    private final boolean dataFileOverflow;
    private final long elapsedMicros;
    /** Offset of the name in each {@code *threads} line, by thread id; -1 for ids without a line. */
    private final int[] threadNameAt;
    /** Method index to the offset of its class name in its {@code *methods} line. */
    private final IntIntMap methodAt;
    private final int recordsStart;
    private final int recordStep;
    private final int recordCount;
    private final int threadIdBytes;
    private final int timeOffset;

    ArtTrace(byte[] data, int version, ArtClock clock, boolean dataFileOverflow, long elapsedMicros,
             int[] threadNameAt, IntIntMap methodAt, int recordsStart, int recordStep, int recordCount,
             int threadIdBytes, int timeOffset) {
        this.data = data;
        this.version = version;
        this.clock = clock;
        this.dataFileOverflow = dataFileOverflow;
        this.elapsedMicros = elapsedMicros;
        this.threadNameAt = threadNameAt;
        this.methodAt = methodAt;
        this.recordsStart = recordsStart;
        this.recordStep = recordStep;
        this.recordCount = recordCount;
        this.threadIdBytes = threadIdBytes;
        this.timeOffset = timeOffset;
    }

    /** The binary format version (1, 2 or 3). */
    public int version() {
        return version;
    }

    /** The clock the records are read with (version 1 is always global, as in {@code android_trace_log}). */
    public ArtClock clock() {
        return clock;
    }

    /** {@code data-file-overflow=true}: the buffer filled and later records are missing. */
    public boolean dataFileOverflow() {
        return dataFileOverflow;
    }

    /** {@code elapsed-time-usec}, 0 when the header has none. */
    public long elapsedMicros() {
        return elapsedMicros;
    }

    public int recordCount() {
        return recordCount;
    }

    /** The thread id of record {@code i}: an opaque id (a tid on older ART, a small encoding on newer). */
    public int threadId(int i) {
        int at = recordsStart + i * recordStep;
        return threadIdBytes == 1 ? data[at] & 0xFF : (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8;
    }

    /** The method index of record {@code i} (the written value shifted right by 2). */
    public int methodId(int i) {
        return u32(recordsStart + i * recordStep + threadIdBytes) >>> 2;
    }

    /** 0 enter, 1 exit, 2 unwind (exit by exception); the parser stops before any record with 3. */
    public int action(int i) {
        return u32(recordsStart + i * recordStep + threadIdBytes) & 3;
    }

    /**
     * The time of record {@code i} on the trace's time axis, unsigned µs as written (32 bits, so it may wrap):
     * wall time for {@code dual} and {@code wall}, thread CPU time for {@code thread-cpu}, global for version 1.
     */
    public long timeMicros(int i) {
        return Integer.toUnsignedLong(u32(recordsStart + i * recordStep + timeOffset));
    }

    /** The name given to a thread id in {@code *threads} (the last line for it), or null. */
    public String threadName(int threadId) {
        int at = threadId >= 0 && threadId < threadNameAt.length ? threadNameAt[threadId] : -1;
        return at < 0 ? null : new String(data, at, lineEnd(at) - at, StandardCharsets.UTF_8);
    }

    /** The {@code *methods} entry of a method index (the last line for it), or null when the table has none. */
    public ArtMethod method(int methodId) {
        int at = methodAt.get(methodId);
        if (at < 0) {
            return null;
        }
        int classEnd = indexOf(at, (byte) '\t');
        int nameEnd = indexOf(classEnd + 1, (byte) '\t');
        int signatureEnd = indexOf(nameEnd + 1, (byte) '\t');
        int sourceEnd = signatureEnd + 1;
        while (data[sourceEnd] != '\t' && data[sourceEnd] != '\n') {
            sourceEnd++;
        }
        Long line = null;
        if (data[sourceEnd] == '\t' && data[sourceEnd + 1] != '\n') {
            line = TraceNumbers.parse(data, sourceEnd + 1, lineEnd(sourceEnd + 1), 0xFFFF_FFFFL);
        }
        return new ArtMethod(methodId, text(at, classEnd), text(classEnd + 1, nameEnd),
                text(nameEnd + 1, signatureEnd), text(signatureEnd + 1, sourceEnd), line);
    }

    /** How many methods the {@code *methods} table names. */
    public int methodCount() {
        return methodAt.size();
    }

    private String text(int from, int to) {
        return new String(data, from, to - from, StandardCharsets.UTF_8);
    }

    private int indexOf(int from, byte value) {
        int i = from;
        while (data[i] != value) {
            i++;
        }
        return i;
    }

    private int lineEnd(int from) {
        return indexOf(from, (byte) '\n');
    }

    private int u32(int at) {
        return (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8 | (data[at + 2] & 0xFF) << 16 | (data[at + 3] & 0xFF) << 24;
    }
}
