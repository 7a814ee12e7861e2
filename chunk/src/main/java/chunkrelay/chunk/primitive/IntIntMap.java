package chunkrelay.chunk.primitive;

import java.util.Arrays;

/** Open-addressing map from int keys to non-negative int values, without boxing; -1 means absent. */
public final class IntIntMap {
    private int[] keys;
    private int[] values;
    private int size;

    public IntIntMap(int expected) {
        int capacity = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new int[capacity];
        values = new int[capacity];
        Arrays.fill(values, -1);
    }

    /** The value of {@code key}, or -1 when absent. */
    public int get(int key) {
        return values[slotOf(key)];
    }

    public void put(int key, int value) {
        growForOneMore();
        int slot = slotOf(key);
        if (values[slot] < 0) {
            keys[slot] = key;
            size++;
        }
        values[slot] = value;
    }

    /** The slot that holds {@code key}, or the empty slot where it would go (linear probing). */
    private int slotOf(int key) {
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
        int[] oldKeys = keys;
        int[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(values, -1);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] >= 0) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
