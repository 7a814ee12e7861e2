package chunkrelay.chunk.primitive;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IndexedSetTest {

    @Test
    void indexesValuesInTheOrderFirstAddedAndReadsThemBackSo() {
        IndexedSet<String> set = IndexedSet.byValue();

        assertEquals(0, set.indexOf("b"));
        assertEquals(1, set.indexOf("a"));
        assertEquals(0, set.indexOf(new String("b")));
        assertEquals(2, set.indexOf("c"));

        assertEquals(List.of("b", "a", "c"), set.values());
        assertEquals("a", set.get(1));
        assertEquals(3, set.size());
    }

    @Test
    void aSetStartingWithAZeroValueHasItAtIndexZero() {
        IndexedSet<String> set = IndexedSet.startingWith("");

        assertEquals(1, set.indexOf("x"));
        assertEquals(0, set.indexOf(""));
        assertEquals(List.of("", "x"), set.values());
    }

    @Test
    void intArraysAreOneValueWhenTheirElementsAre() {
        IndexedSet<int[]> stacks = IndexedSet.byContents();

        assertEquals(0, stacks.indexOf(new int[] {3, 1, 2}));
        assertEquals(1, stacks.indexOf(new int[] {3, 1}));
        assertEquals(2, stacks.indexOf(new int[0]));
        assertEquals(0, stacks.indexOf(new int[] {3, 1, 2}));
        assertEquals(2, stacks.indexOf(new int[0]));
        assertEquals(3, stacks.size());
    }

    @Test
    void keepsEveryIndexWhileGrowingWithValuesWhoseHashesCollide() {
        IndexedSet<Colliding> set = IndexedSet.byValue();
        List<Colliding> added = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            Colliding value = new Colliding(i);
            added.add(value);
            assertEquals(i, set.indexOf(value));
        }
        for (int i = 49_999; i >= 0; i -= 7) {
            assertEquals(i, set.indexOf(new Colliding(i)));
        }
        assertEquals(added, set.values());
    }

    /** Values whose hashes fall in a few buckets, 64 values each, so that probes run long. */
    private record Colliding(int id) {
        @Override
        public int hashCode() {
            return id / 64;
        }
    }
}
