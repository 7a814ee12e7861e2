package chunkrelay.chunk.perfetto;

import java.util.Arrays;

/** A growable int array; the conversion's sizes are bounded by {@link PerfettoLimits}. */
final class IntList {
    private int[] values = new int[64];
    private int size;

    void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    int size() {
        return size;
    }

    int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
