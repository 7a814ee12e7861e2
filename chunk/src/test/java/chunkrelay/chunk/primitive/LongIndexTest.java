package chunkrelay.chunk.primitive;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LongIndexTest {

    @Test
    void numbersKeysInTheOrderFirstSeen() {
        LongIndex index = new LongIndex(2);

        assertEquals(0, index.indexOf(7L << 32 | 3));
        assertEquals(1, index.indexOf(0));
        assertEquals(2, index.indexOf(-1));
        assertEquals(0, index.indexOf(7L << 32 | 3));
        assertEquals(1, index.indexOf(0));
        assertEquals(3, index.size());
    }

    @Test
    void keepsEveryNumberWhileGrowingFarPastTheExpectedSize() {
        LongIndex index = new LongIndex(4);
        for (long key = 0; key < 100_000; key++) {
            assertEquals((int) key, index.indexOf(key * 0x1_0000_0001L));
        }
        for (long key = 99_999; key >= 0; key--) {
            assertEquals((int) key, index.indexOf(key * 0x1_0000_0001L));
        }
        assertEquals(100_000, index.size());
    }
}
