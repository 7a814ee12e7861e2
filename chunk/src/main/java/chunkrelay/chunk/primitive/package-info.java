/**
 * Collections for the hundreds of thousands of elements of one chunk, without an object per element: open-addressing
 * maps on primitive keys, numbering of keys (the one interning table, {@link chunkrelay.chunk.primitive.IndexedSet},
 * and {@link chunkrelay.chunk.primitive.LongIndex} for {@code long} keys), the remap of one table's indices into
 * another's ({@link chunkrelay.chunk.primitive.IndexRemap}), and arrays (of ints, longs or references) that grow in
 * blocks.
 */
package chunkrelay.chunk.primitive;
