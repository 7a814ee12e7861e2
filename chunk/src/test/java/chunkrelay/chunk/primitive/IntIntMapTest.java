package chunkrelay.chunk.primitive;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IntIntMapTest {

    @Test
    void keepsEveryValueWhileGrowingFarPastTheExpectedSize() {
        IntIntMap map = new IntIntMap(2);
        for (int i = 0; i < 100_000; i++) {
            map.put(i << 2, i);
        }
        map.put(0, 7);
        for (int i = 1; i < 100_000; i++) {
            assertEquals(i, map.get(i << 2));
        }
        assertEquals(7, map.get(0));
        assertEquals(-1, map.get(1));
        assertEquals(100_000, map.size());
    }
}
