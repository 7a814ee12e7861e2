package chunkrelay.chunk.art;

import chunkrelay.chunk.primitive.IntIntMap;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads an ART method trace with the rules of {@code android_trace_log} 0.3 (the crate Relay parses with), so that
 * a trace Relay refuses is refused here too:
 * <ul>
 *   <li>text header: {@code *version\n}, the version (1, 2 or 3), then {@code key=value} lines of the ten known keys
 *       only, typed ({@code true}/{@code false}, the four clocks, {@code art}/{@code dalvik}, decimal or {@code 0x}
 *       numbers); {@code *threads} lines {@code id\tname} (u16 id, non-empty name); {@code *methods} lines
 *       {@code id\tclass\tname\tsignature\tsource[\tline]} (u32 id, non-empty class, name and signature); any
 *       section line switches section, {@code *end} ends the text; all text is strict UTF-8;</li>
 *   <li>binary header: {@code SLOW}, version 1 to 3 (a mismatch with the text version is allowed, as the crate only
 *       logs it), offset to the records, start time (since boot, not used), record size for version 3;</li>
 *   <li>records: thread id (u8 in version 1, u16 after), method value (index &lt;&lt; 2 | action), one or two u32
 *       times; a trailing partial record is ignored, and reading stops at the first record whose action is 3 (the
 *       crate's repetition stops at the first record that does not parse).</li>
 * </ul>
 * Nothing is allocated per record or per table line beyond a few ints: strings are made on demand by {@link ArtTrace}.
 */
public final class ArtTraceParser {
    private static final byte[] MAGIC = {'S', 'L', 'O', 'W'};
    private static final int THREAD_IDS = 1 << 16;

    private final byte[] data;
    private int pos;

    private ArtTraceParser(byte[] data) {
        this.data = data;
    }

    public static ArtTrace parse(byte[] data) throws ArtTraceException {
        return new ArtTraceParser(data).trace();
    }

    private enum Section { HEADER, THREADS, METHODS, END }

    private ArtTrace trace() throws ArtTraceException {
        expectLine("*version");
        int version = (int) numberLine(3, "the version");
        if (version < 1) {
            throw ArtTraceException.invalid("unsupported trace version " + version);
        }
        ArtClock clock = ArtClock.GLOBAL;
        boolean overflow = false;
        long elapsedMicros = 0;
        int[] threadNameAt = null;
        IntIntMap methodAt = new IntIntMap(64);
        Section section = Section.HEADER;
        while (section != Section.END) {
            int lineStart = pos;
            int lineEnd = lineEnd(lineStart);
            Section next = section(lineStart, lineEnd);
            if (next != null) {
                section = next;
                pos = lineEnd + 1;
                continue;
            }
            switch (section) {
                case HEADER -> {
                    int eq = indexOf(lineStart, lineEnd, (byte) '=');
                    if (eq < 0) {
                        throw invalidLine("a key=value header line", lineStart, lineEnd);
                    }
                    String key = ascii(lineStart, eq);
                    int value = eq + 1;
                    switch (key) {
                        case "data-file-overflow" -> {
                            if (equals(value, lineEnd, "true")) {
                                overflow = true;
                            } else if (equals(value, lineEnd, "false")) {
                                overflow = false;
                            } else {
                                throw invalidLine("true or false", lineStart, lineEnd);
                            }
                        }
                        case "clock" -> clock = clock(value, lineEnd, lineStart);
                        case "elapsed-time-usec" -> elapsedMicros = headerNumber(value, lineEnd, lineStart, -1L);
                        case "num-method-calls", "clock-call-overhead-nsec", "alloc-count", "alloc-size",
                             "gc-count" -> headerNumber(value, lineEnd, lineStart, -1L);
                        case "pid" -> headerNumber(value, lineEnd, lineStart, 0xFFFF_FFFFL);
                        case "vm" -> {
                            if (!equals(value, lineEnd, "art") && !equals(value, lineEnd, "dalvik")) {
                                throw invalidLine("vm=art or vm=dalvik", lineStart, lineEnd);
                            }
                        }
                        default -> throw invalidLine("a known header key", lineStart, lineEnd);
                    }
                }
                case THREADS -> {
                    int tab = indexOf(lineStart, lineEnd, (byte) '\t');
                    Long id = tab < 0 ? null : TraceNumbers.parse(data, lineStart, tab, THREAD_IDS - 1);
                    if (id == null || tab + 1 == lineEnd || !Utf8.isValid(data, tab + 1, lineEnd)) {
                        throw invalidLine("a thread line (u16 id, tab, name)", lineStart, lineEnd);
                    }
                    if (threadNameAt == null) {
                        threadNameAt = new int[THREAD_IDS];
                        Arrays.fill(threadNameAt, -1);
                    }
                    threadNameAt[(int) (long) id] = tab + 1;
                }
                case METHODS -> {
                    int tab = indexOf(lineStart, lineEnd, (byte) '\t');
                    Long id = tab < 0 ? null : TraceNumbers.parse(data, lineStart, tab, 0xFFFF_FFFFL);
                    if (id == null) {
                        throw invalidLine("a method line (u32 id, tab, ...)", lineStart, lineEnd);
                    }
                    // class, name and signature end at a tab (not at a line end, as in the crate)
                    int at = tab + 1;
                    for (int column = 0; column < 3; column++) {
                        int end = at;
                        while (end < data.length && data[end] != '\t') {
                            end++;
                        }
                        if (end == at || end == data.length || !Utf8.isValid(data, at, end)) {
                            throw invalidLine("a method line with class, name and signature", lineStart, lineEnd);
                        }
                        at = end + 1;
                    }
                    int sourceEnd = at;
                    while (sourceEnd < data.length && data[sourceEnd] != '\t' && data[sourceEnd] != '\n') {
                        sourceEnd++;
                    }
                    if (sourceEnd == data.length || !Utf8.isValid(data, at, sourceEnd)) {
                        throw invalidLine("a method line ending in a source file", lineStart, lineEnd);
                    }
                    int end = lineEnd(sourceEnd);
                    if (data[sourceEnd] == '\t' && end > sourceEnd + 1
                            && TraceNumbers.parse(data, sourceEnd + 1, end, 0xFFFF_FFFFL) == null) {
                        throw invalidLine("a method line ending in a line number", lineStart, end);
                    }
                    methodAt.put((int) (id >>> 2), tab + 1);
                    pos = end + 1;
                    continue;
                }
                default -> throw new IllegalStateException(section.name());
            }
            pos = lineEnd + 1;
        }
        return binary(version, clock, overflow, elapsedMicros,
                threadNameAt == null ? new int[0] : threadNameAt, methodAt);
    }

    private ArtTrace binary(int textVersion, ArtClock headerClock, boolean overflow, long elapsedMicros,
                            int[] threadNameAt, IntIntMap methodAt) throws ArtTraceException {
        int start = pos;
        if (data.length - start < 16 || !Arrays.equals(data, start, start + 4, MAGIC, 0, 4)) {
            throw ArtTraceException.invalid("no SLOW binary header after *end");
        }
        int version = u16(start + 4);
        if (version < 1 || version > 3) {
            throw ArtTraceException.invalid("unsupported binary version 0x" + Integer.toHexString(version)
                    + " (only 1, 2 and 3; streaming traces are not supported)");
        }
        int offset = u16(start + 6);
        int headerLength = 16;
        int recordSize = 0;
        if (version == 3) {
            if (data.length - start < 18) {
                throw ArtTraceException.invalid("binary header ends before the record size");
            }
            recordSize = u16(start + 16);
            headerLength = 18;
        }
        int recordsStart = start + Math.max(headerLength, offset);
        if (recordsStart > data.length) {
            throw ArtTraceException.invalid("binary header offset " + offset + " is past the end of the trace");
        }
        ArtClock clock = version == 1 ? ArtClock.GLOBAL
                : version == 2 && headerClock == ArtClock.DUAL ? ArtClock.THREAD_CPU : headerClock;
        int threadIdBytes = version == 1 ? 1 : 2;
        int natural = threadIdBytes + 4 + 4 + (clock == ArtClock.DUAL ? 4 : 0);
        int step = Math.max(natural, recordSize);
        int timeOffset = threadIdBytes + 4 + (clock == ArtClock.DUAL ? 4 : 0);
        int count = (data.length - recordsStart) / step;
        for (int i = 0; i < count; i++) {
            if ((data[recordsStart + i * step + threadIdBytes] & 3) == 3) {
                count = i;
                break;
            }
        }
        return new ArtTrace(data, textVersion, clock, overflow, elapsedMicros, threadNameAt, methodAt, recordsStart,
                step, count, threadIdBytes, timeOffset);
    }

    private Section section(int from, int to) {
        if (to - from < 2 || data[from] != '*') {
            return null;
        }
        return switch (ascii(from + 1, to)) {
            case "version" -> Section.HEADER;
            case "threads" -> Section.THREADS;
            case "methods" -> Section.METHODS;
            case "end" -> Section.END;
            default -> null;
        };
    }

    private ArtClock clock(int from, int to, int lineStart) throws ArtTraceException {
        return switch (ascii(from, to)) {
            case "global" -> ArtClock.GLOBAL;
            case "thread-cpu" -> ArtClock.THREAD_CPU;
            case "wall" -> ArtClock.WALL;
            case "dual" -> ArtClock.DUAL;
            default -> throw invalidLine("clock=global, thread-cpu, wall or dual", lineStart, to);
        };
    }

    private long headerNumber(int from, int to, int lineStart, long max) throws ArtTraceException {
        Long value = TraceNumbers.parse(data, from, to, max);
        if (value == null) {
            throw invalidLine("a number", lineStart, to);
        }
        return value;
    }

    private void expectLine(String text) throws ArtTraceException {
        byte[] expected = (text + "\n").getBytes(StandardCharsets.US_ASCII);
        if (data.length < expected.length || !Arrays.equals(data, 0, expected.length, expected, 0, expected.length)) {
            throw ArtTraceException.invalid("the trace does not start with " + text);
        }
        pos = expected.length;
    }

    private long numberLine(long max, String what) throws ArtTraceException {
        int end = lineEnd(pos);
        Long value = TraceNumbers.parse(data, pos, end, max);
        if (value == null) {
            throw ArtTraceException.invalid(what + " is not a number up to " + max + ": \"" + ascii(pos, end) + "\"");
        }
        pos = end + 1;
        return value;
    }

    private int lineEnd(int from) throws ArtTraceException {
        for (int i = from; i < data.length; i++) {
            if (data[i] == '\n') {
                return i;
            }
        }
        throw ArtTraceException.invalid("the text header ends without *end");
    }

    private static int indexOf(byte[] data, int from, int to, byte value) {
        for (int i = from; i < to; i++) {
            if (data[i] == value) {
                return i;
            }
        }
        return -1;
    }

    private int indexOf(int from, int to, byte value) {
        return indexOf(data, from, to, value);
    }

    private boolean equals(int from, int to, String ascii) {
        if (to - from != ascii.length()) {
            return false;
        }
        for (int i = 0; i < ascii.length(); i++) {
            if (data[from + i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Text as Latin-1 for comparisons and messages; lengths are capped so messages stay short. */
    private String ascii(int from, int to) {
        return new String(data, from, Math.min(to - from, 80), StandardCharsets.ISO_8859_1);
    }

    private ArtTraceException invalidLine(String expected, int from, int to) {
        return ArtTraceException.invalid("expected " + expected + " at byte " + from + ", got \"" + ascii(from, to) + "\"");
    }

    private int u16(int at) {
        return (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8;
    }
}
