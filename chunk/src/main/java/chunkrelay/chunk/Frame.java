package chunkrelay.chunk;

/**
 * One frame of a chunk, with the fields Relay keeps (every one optional).
 * {@code instructionAddr} is already masked for cocoa after normalisation.
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
