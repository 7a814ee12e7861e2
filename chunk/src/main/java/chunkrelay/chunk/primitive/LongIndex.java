package chunkrelay.chunk.primitive;

import java.util.Arrays;

/**
 * Numbers distinct {@code long} keys 0, 1, 2, ... in the order first seen, on primitive arrays, so grouping hundreds
 * of thousands of samples allocates nothing per sample.
 */
public final class LongIndex {
    private final LongIntMap numbers;
    /** The keys by their number. */
    private long[] numbered = new long[16];
    private int size;

    public LongIndex(int expectedKeys) {
        numbers = new LongIntMap(expectedKeys);
    }

    /** The number of {@code key}, assigning the next one when the key is new. */
    public int indexOf(long key) {
        int number = numbers.putIfAbsent(key, size);
        if (number >= 0) {
            return number;
        }
        if (size == numbered.length) {
            numbered = Arrays.copyOf(numbered, size * 2);
        }
        numbered[size] = key;
        return size++;
    }

    /** The key numbered {@code number}. */
    public long key(int number) {
        return numbered[number];
    }

    public int size() {
        return size;
    }
}
