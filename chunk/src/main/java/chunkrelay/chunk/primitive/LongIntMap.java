package chunkrelay.chunk.primitive;

import java.util.Arrays;

/** Open-addressing map from long keys to non-negative int values, without boxing; -1 means absent. */
public final class LongIntMap {
    private long[] keys;
    private int[] values;
    private int size;

    public LongIntMap(int expected) {
        int capacity = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
        Arrays.fill(values, -1);
    }

    /** The value of {@code key}, or -1 when absent. */
    public int get(long key) {
        return values[slotOf(key)];
    }

    public void put(long key, int value) {
        growForOneMore();
        int slot = slotOf(key);
        if (values[slot] < 0) {
            keys[slot] = key;
            size++;
        }
        values[slot] = value;
    }

    /** The value of {@code key} when present; otherwise puts {@code value} and returns -1, in one probe. */
    public int putIfAbsent(long key, int value) {
        growForOneMore();
        int slot = slotOf(key);
        if (values[slot] >= 0) {
            return values[slot];
        }
        keys[slot] = key;
        values[slot] = value;
        size++;
        return -1;
    }

    /** The slot that holds {@code key}, or the empty slot where it would go (linear probing). */
    private int slotOf(long key) {
        int mask = keys.length - 1;
        int slot = mix(key) & mask;
        while (values[slot] >= 0 && keys[slot] != key) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private void growForOneMore() {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
    }

    public int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(values, -1);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] >= 0) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
