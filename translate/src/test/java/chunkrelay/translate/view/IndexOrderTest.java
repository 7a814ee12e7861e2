package chunkrelay.translate.view;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class IndexOrderTest {
    @Test
    void sortsIndicesAsABoxedStableSortDoesRowsWithManyTies() {
        for (int size : new int[] {0, 1, 15, 16, 17, 100, 1_000, 40_001}) {
            int[] rows = new Random(size).ints(size, 0, Math.max(1, size / 4)).toArray();
            Integer[] boxed = new Integer[size];
            Arrays.setAll(boxed, i -> i);
            Arrays.sort(boxed, Comparator.comparingInt(i -> rows[i]));
            assertArrayEquals(Arrays.stream(boxed).mapToInt(Integer::intValue).toArray(),
                    IndexOrder.sorted(size, (a, b) -> Integer.compare(rows[a], rows[b])), "size " + size);
        }
    }

    @Test
    void sortsRowsGivenInReverse() {
        int[] order = IndexOrder.sorted(1_000, (a, b) -> Integer.compare(b, a));
        for (int i = 0; i < order.length; i++) {
            assertEquals(999 - i, order[i]);
        }
    }
}
