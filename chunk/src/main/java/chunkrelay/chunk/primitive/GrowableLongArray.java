package chunkrelay.chunk.primitive;

import java.util.ArrayList;
import java.util.List;

/** An append-only long array in fixed-size blocks, for sample timestamps; see {@link GrowableIntArray}. */
public final class GrowableLongArray {
    private static final int BLOCK = 1 << 13;

    private final List<long[]> blocks = new ArrayList<>();
    /** Allocated on the first value, so an array that stays empty (or is emptied by {@link #toArray}) costs nothing. */
    private long[] current;
    private int inCurrent;
    private int size;

    public void add(long value) {
        if (current == null) {
            current = new long[BLOCK];
        } else if (inCurrent == BLOCK) {
            blocks.add(current);
            current = new long[BLOCK];
            inCurrent = 0;
        }
        current[inCurrent++] = value;
        size++;
    }

    /** The values in one array; this instance is empty afterwards. */
    public long[] toArray() {
        long[] out = new long[size];
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
