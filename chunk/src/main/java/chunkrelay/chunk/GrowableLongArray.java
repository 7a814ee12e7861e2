package chunkrelay.chunk;

import java.util.Arrays;

/** An append-only long array for sample timestamps while parsing. */
final class GrowableLongArray {
    private long[] values = new long[16];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, values.length * 2);
        }
        values[size++] = value;
    }

    int size() {
        return size;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
