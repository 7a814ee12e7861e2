package chunkrelay.chunk.art;

/**
 * The numbers of an ART trace's text, read as {@code android_trace_log} reads them, for the parser's header and tables
 * and for a method's line read on demand by {@link ArtTrace}.
 */
final class TraceNumbers {
    private TraceNumbers() {
    }

    /**
     * A decimal or {@code 0x} hexadecimal number filling {@code [from, to)} exactly, as an unsigned value up to
     * {@code max} ({@code -1} for the whole unsigned 64-bit range); null otherwise.
     */
    static Long parse(byte[] data, int from, int to, long max) {
        boolean hex = to - from > 2 && data[from] == '0' && data[from + 1] == 'x';
        int radix = hex ? 16 : 10;
        int start = hex ? from + 2 : from;
        if (start >= to) {
            return null;
        }
        long value = 0;
        for (int i = start; i < to; i++) {
            int digit = Character.digit(data[i], radix);
            if (digit < 0 || data[i] < 0) {
                return null;
            }
            long shifted = value * radix;
            if (Long.divideUnsigned(shifted, radix) != value || Long.compareUnsigned(shifted + digit, shifted) < 0) {
                return null;
            }
            value = shifted + digit;
        }
        if (max != -1L && Long.compareUnsigned(value, max) > 0) {
            return null;
        }
        return value;
    }
}
