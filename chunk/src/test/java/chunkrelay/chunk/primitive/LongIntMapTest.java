package chunkrelay.chunk.primitive;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LongIntMapTest {

    @Test
    void keepsEveryValueWhileGrowingFarPastTheExpectedSize() {
        LongIntMap map = new LongIntMap(2);
        for (int i = 0; i < 100_000; i++) {
            map.put(i * 0x1_0000_0001L, i);
        }
        for (int i = 0; i < 100_000; i++) {
            assertEquals(i, map.get(i * 0x1_0000_0001L));
        }
        assertEquals(-1, map.get(-1));
        assertEquals(100_000, map.size());
    }

    @Test
    void putIfAbsentKeepsTheFirstValue() {
        LongIntMap map = new LongIntMap(4);

        assertEquals(-1, map.putIfAbsent(Long.MIN_VALUE, 3));
        assertEquals(3, map.putIfAbsent(Long.MIN_VALUE, 4));
        map.put(Long.MIN_VALUE, 5);
        assertEquals(5, map.get(Long.MIN_VALUE));
        assertEquals(1, map.size());
    }
}
