package chunkrelay.chunk;

import java.util.Arrays;

/** An append-only int array, so a chunk's stacks and samples cost 4 bytes per value while parsing. */
final class GrowableIntArray {
    private int[] values = new int[16];
    private int size;

    void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, values.length * 2);
        }
        values[size++] = value;
    }

    int size() {
        return size;
    }

    int get(int index) {
        return values[index];
    }

    /** The values, trimmed to size. */
    int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
