package chunkrelay.chunk;

/**
 * One frame of a chunk, with the fields Relay keeps (every one optional).
 * {@code instructionAddr} is already masked for cocoa after normalisation. {@code lineno} and
 * {@code colno} are unsigned 32-bit in Relay: values above {@link Integer#MAX_VALUE} arrive as their
 * bit pattern (read them with {@link Integer#toUnsignedLong(int)}).
 */
public record Frame(
        String function,
        String module,
        String filename,
        String absPath,
        Integer lineno,
        Integer colno,
        Boolean inApp,
        Long instructionAddr,
        String platform) {
}
