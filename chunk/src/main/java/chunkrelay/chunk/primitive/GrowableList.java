package chunkrelay.chunk.primitive;

import java.util.ArrayList;
import java.util.List;

/**
 * An append-only list in fixed-size blocks, turned into an immutable list at the end: growing never
 * copies, so millions of tiny frames ("{},") cost their references about twice, not four times.
 */
public final class GrowableList<T> {
    private static final int BLOCK = 1 << 14;

    private final List<Object[]> blocks = new ArrayList<>();
    private Object[] current = new Object[BLOCK];
    private int inCurrent;
    private int size;

    public void add(T value) {
        if (inCurrent == BLOCK) {
            blocks.add(current);
            current = new Object[BLOCK];
            inCurrent = 0;
        }
        current[inCurrent++] = value;
        size++;
    }

    public int size() {
        return size;
    }

    /** The values as an immutable list; this instance is empty afterwards. */
    @SuppressWarnings("unchecked")
    public List<T> toImmutableList() {
        Object[] out = new Object[size];
        int at = 0;
        for (Object[] block : blocks) {
            System.arraycopy(block, 0, out, at, BLOCK);
            at += BLOCK;
        }
        System.arraycopy(current, 0, out, at, inCurrent);
        blocks.clear();
        current = new Object[0];
        inCurrent = 0;
        size = 0;
        return (List<T>) List.of(out);
    }
}
