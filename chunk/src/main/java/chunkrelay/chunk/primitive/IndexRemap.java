package chunkrelay.chunk.primitive;

import java.util.Arrays;

/**
 * The new index of each index of one table read into another: a request's or rollup's tables into a merge, a chunk's
 * frames and stacks into the OTLP dictionary (each entry mapped the first time a sample reaches it, so that what no
 * sample reaches is never read, and what many reach is read once), a dictionary into its pruned part.
 */
public final class IndexRemap {
    /** The new index of an entry not mapped yet. */
    public static final int UNMAPPED = -1;

    private final int[] newIndexOf;

    /** A remap of a table of {@code size} entries, none mapped yet. */
    public IndexRemap(int size) {
        newIndexOf = new int[size];
        Arrays.fill(newIndexOf, UNMAPPED);
    }

    /** The new index of {@code oldIndex}, or {@link #UNMAPPED}. */
    public int get(int oldIndex) {
        return newIndexOf[oldIndex];
    }

    /** Maps {@code oldIndex} to {@code newIndex} and returns {@code newIndex}. */
    public int set(int oldIndex, int newIndex) {
        newIndexOf[oldIndex] = newIndex;
        return newIndex;
    }

    /** The size of the old table. */
    public int size() {
        return newIndexOf.length;
    }
}
