package chunkrelay.chunk.art;

/**
 * One line of a trace's {@code *methods} table.
 *
 * @param id         the method index (the written id shifted right by 2)
 * @param sourceFile may be empty
 * @param sourceLine null when the line has no sixth column (ART writes none)
 */
public record ArtMethod(int id, String className, String name, String signature, String sourceFile,
                        Long sourceLine) {
}
