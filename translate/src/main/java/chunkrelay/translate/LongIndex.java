package chunkrelay.translate;

import java.util.Arrays;

/**
 * Numbers distinct {@code long} keys 0, 1, 2, ... in the order first seen: an open-addressing hash
 * table on primitive arrays, so grouping hundreds of thousands of samples allocates nothing per sample.
 */
final class LongIndex {
    private long[] keys;
    private int[] slots;
    /** The keys by their number. */
    private long[] numbered;
    private int size;

    LongIndex(int expectedKeys) {
        int capacity = Integer.highestOneBit(Math.max(4, expectedKeys) * 2 - 1) << 1;
        keys = new long[capacity];
        slots = new int[capacity];
        numbered = new long[16];
        Arrays.fill(slots, -1);
    }

    /** The number of {@code key}, assigning the next one when the key is new. */
    int indexOf(long key) {
        int mask = slots.length - 1;
        int i = mix(key) & mask;
        while (slots[i] >= 0) {
            if (keys[i] == key) {
                return slots[i];
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        slots[i] = size;
        if (size == numbered.length) {
            numbered = Arrays.copyOf(numbered, size * 2);
        }
        numbered[size] = key;
        size++;
        if (size * 2 > slots.length) {
            grow();
        }
        return size - 1;
    }

    /** The key numbered {@code number}. */
    long key(int number) {
        return numbered[number];
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldSlots = slots;
        keys = new long[oldKeys.length * 2];
        slots = new int[oldSlots.length * 2];
        Arrays.fill(slots, -1);
        int mask = slots.length - 1;
        for (int j = 0; j < oldSlots.length; j++) {
            if (oldSlots[j] >= 0) {
                int i = mix(oldKeys[j]) & mask;
                while (slots[i] >= 0) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                slots[i] = oldSlots[j];
            }
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
