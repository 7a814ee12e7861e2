package chunkrelay.chunk.primitive;

import java.util.ArrayList;
import java.util.List;

/**
 * An append-only int array in fixed-size blocks: growing never copies, and {@link #toArray} releases
 * each block as soon as it is copied, so a payload of nothing but small indices ("0,0,0,...") needs
 * about its final array plus one block, not the 2-3 times a doubling array needs while it grows.
 */
public final class GrowableIntArray {
    private static final int BLOCK = 1 << 14;

    private final List<int[]> blocks = new ArrayList<>();
    /** Allocated on the first value, so an array that stays empty (or is emptied by {@link #toArray}) costs nothing. */
    private int[] current;
    private int inCurrent;
    private int size;

    public void add(int value) {
        if (current == null) {
            current = new int[BLOCK];
        } else if (inCurrent == BLOCK) {
            blocks.add(current);
            current = new int[BLOCK];
            inCurrent = 0;
        }
        current[inCurrent++] = value;
        size++;
    }

    public int size() {
        return size;
    }

    /** The values in one array; this instance is empty afterwards. */
    public int[] toArray() {
        int[] out = new int[size];
        int at = 0;
        for (int i = 0; i < blocks.size(); i++) {
            System.arraycopy(blocks.get(i), 0, out, at, BLOCK);
            blocks.set(i, null);
            at += BLOCK;
        }
        if (current != null) {
            System.arraycopy(current, 0, out, at, inCurrent);
        }
        blocks.clear();
        current = null;
        inCurrent = 0;
        size = 0;
        return out;
    }
}
