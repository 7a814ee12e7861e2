package chunkrelay.chunk.primitive;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class GrowableArraysTest {

    @Test
    void intArrayKeepsTheOrderAcrossBlocksAndIsEmptyAfterToArray() {
        GrowableIntArray array = new GrowableIntArray();
        int[] expected = new int[100_000];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = i * 7;
            array.add(i * 7);
        }

        assertEquals(expected.length, array.size());
        assertArrayEquals(expected, array.toArray());
        assertEquals(0, array.size());
        assertArrayEquals(new int[0], array.toArray());
    }

    @Test
    void longArrayKeepsTheOrderAcrossBlocksAndIsEmptyAfterToArray() {
        GrowableLongArray array = new GrowableLongArray();
        long[] expected = new long[100_000];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = i * 0x1_0000_0001L;
            array.add(i * 0x1_0000_0001L);
        }

        assertArrayEquals(expected, array.toArray());
        assertArrayEquals(new long[0], array.toArray());
    }

    @Test
    void listKeepsTheOrderAcrossBlocksAndIsEmptyAfterItsImmutableCopy() {
        GrowableList<Integer> list = new GrowableList<>();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            expected.add(i);
            list.add(i);
        }

        assertEquals(expected.size(), list.size());
        assertEquals(expected, list.toImmutableList());
        assertEquals(0, list.size());
        assertEquals(List.of(), list.toImmutableList());
    }
}
