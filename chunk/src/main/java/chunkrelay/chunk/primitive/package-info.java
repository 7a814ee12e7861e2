/**
 * Primitive collections without boxing (open-addressing hash maps, numbering of keys, block-growing arrays), shared
 * by the chunk parsers and the translation, which handle hundreds of thousands of samples per chunk.
 */
package chunkrelay.chunk.primitive;
