package chunkrelay.translate;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * A read-only view of part of a {@code long[]} as a list, so that a whole run of values goes into a protobuf
 * builder with one {@code addAll} (one change notification, one capacity check) instead of one call per value.
 */
final class LongRange extends AbstractList<Long> implements RandomAccess {
    private final long[] values;
    private final int from;
    private final int to;

    /** The values {@code values[from .. to)}. */
    LongRange(long[] values, int from, int to) {
        if (from < 0 || to > values.length || from > to) {
            throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") of " + values.length);
        }
        this.values = values;
        this.from = from;
        this.to = to;
    }

    @Override
    public Long get(int index) {
        if (index < 0 || index >= to - from) {
            throw new IndexOutOfBoundsException(index);
        }
        return values[from + index];
    }

    @Override
    public int size() {
        return to - from;
    }
}
