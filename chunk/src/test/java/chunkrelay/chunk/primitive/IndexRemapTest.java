package chunkrelay.chunk.primitive;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IndexRemapTest {

    @Test
    void everyIndexIsUnmappedUntilSet() {
        IndexRemap remap = new IndexRemap(3);

        assertEquals(5, remap.set(1, 5));

        assertEquals(IndexRemap.UNMAPPED, remap.get(0));
        assertEquals(5, remap.get(1));
        assertEquals(IndexRemap.UNMAPPED, remap.get(2));
        assertEquals(3, remap.size());
    }
}
