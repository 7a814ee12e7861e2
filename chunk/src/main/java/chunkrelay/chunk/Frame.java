package chunkrelay.chunk;

/**
 * One frame of a chunk, with the fields Relay keeps (every one optional), plus the JNI {@code signature} of a method
 * read from an Android ART trace (V2 frames have none).
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
        String platform,
        String signature) {

    /** A frame without a signature: every Sample Format V2 frame. */
    public Frame(String function, String module, String filename, String absPath, Integer lineno, Integer colno,
                 Boolean inApp, Long instructionAddr, String platform) {
        this(function, module, filename, absPath, lineno, colno, inApp, instructionAddr, platform, null);
    }
}
