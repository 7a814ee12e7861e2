package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexRemap;

import java.util.List;

/**
 * The one walk of an input's frames into the merged tables, for requests ({@link RequestMapping}) and rollups
 * ({@link RollupMapping}) alike: a stack maps its locations, a location its lines' functions, each entry the first
 * time a kept sample reaches it ({@link IndexRemap}), so that what no sample reaches is never read and what many reach
 * is mapped once. Not thread-safe.
 */
final class FrameRemap {
    private final MergedTables tables;
    private final FrameSource source;
    private final boolean namesEmptyStacks;
    private final IndexRemap stackOf;
    private final IndexRemap locationOf;
    private final IndexRemap functionOf;

    /**
     * @param namesEmptyStacks whether a stack of no locations maps to the frame the translation names empty stacks
     *                         with ({@link MergedTables#emptyStackLocation}): OTLP archived before the translation
     *                         named them has such stacks, which no export should drop or write as a nameless line
     */
    FrameRemap(MergedTables tables, FrameSource source, boolean namesEmptyStacks) {
        this.tables = tables;
        this.source = source;
        this.namesEmptyStacks = namesEmptyStacks;
        this.stackOf = new IndexRemap(source.stackCount());
        this.locationOf = new IndexRemap(source.locationCount());
        this.functionOf = new IndexRemap(source.functionCount());
    }

    /** The merged stack of an input's stack, whose samples are of {@code periodType}. */
    int stack(int index, String periodType) {
        int known = stackOf.get(index);
        if (known != IndexRemap.UNMAPPED) {
            return known;
        }
        int depth = source.stackDepth(index);
        if (depth == 0 && namesEmptyStacks) {
            return stackOf.set(index, tables.stack(new int[] {tables.emptyStackLocation(periodType)}));
        }
        int[] mapped = new int[depth];
        for (int i = 0; i < depth; i++) {
            mapped[i] = location(source.stackLocation(index, i));
        }
        return stackOf.set(index, tables.stack(mapped));
    }

    private int location(int index) {
        int known = locationOf.get(index);
        if (known != IndexRemap.UNMAPPED) {
            return known;
        }
        MergedProfile.Line[] lines = new MergedProfile.Line[source.lineCount(index)];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = new MergedProfile.Line(function(source.lineFunction(index, i)), source.lineNumber(index, i));
        }
        return locationOf.set(index,
                tables.location(new MergedProfile.Location(source.address(index), List.of(lines))));
    }

    private int function(int index) {
        int known = functionOf.get(index);
        return known != IndexRemap.UNMAPPED ? known : functionOf.set(index, tables.function(source.function(index)));
    }
}
