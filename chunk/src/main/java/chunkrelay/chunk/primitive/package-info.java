/**
 * Collections for the hundreds of thousands of elements of one chunk, without an object per element: open-addressing
 * maps on primitive keys, numbering of keys, and arrays (of ints, longs or references) that grow in blocks.
 */
package chunkrelay.chunk.primitive;
