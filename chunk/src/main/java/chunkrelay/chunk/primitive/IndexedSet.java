package chunkrelay.chunk.primitive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * An indexed set, the one interning table of the relay: each distinct value is stored once and known by a dense index
 * 0, 1, 2, ... in the order first added, and read back in that order. It is what an OTLP dictionary table is (made
 * {@linkplain #startingWith starting with} the table's zero value, so that index 0 means "unset"), and what the
 * merges, rollups and trace converters number frames, stacks, threads and links with.
 *
 * <p>The index is found in open-addressing slots of primitive ints, each value's spread hash kept beside it, so adding
 * a value allocates nothing of its own (no map entry, no boxed index) and a lookup compares a value only when the
 * hashes match. Stacks are arrays of frame indices: a set made {@linkplain #byContents() by contents} compares them
 * element by element without a key object around each. {@code long} keys have their own set, {@link LongIndex}, so
 * that they are not boxed. Not thread-safe.
 *
 * @param <T> the values; a value must not change while it is in the set
 */
public final class IndexedSet<T> {
    /** How values are told apart: by their own {@code equals} and {@code hashCode}, or by an array's contents. */
    private interface Equality<T> {
        int hash(T value);

        boolean same(T a, T b);
    }

    private static final Equality<Object> BY_VALUE = new Equality<>() {
        @Override
        public int hash(Object value) {
            return Objects.hashCode(value);
        }

        @Override
        public boolean same(Object a, Object b) {
            return Objects.equals(a, b);
        }
    };

    private static final Equality<int[]> BY_CONTENTS = new Equality<>() {
        @Override
        public int hash(int[] value) {
            return Arrays.hashCode(value);
        }

        @Override
        public boolean same(int[] a, int[] b) {
            return Arrays.equals(a, b);
        }
    };

    private final Equality<? super T> equality;
    private final List<T> values = new ArrayList<>();
    /** The spread hash of each value, by index. */
    private int[] hashes = new int[16];
    /** Open addressing (linear probing): each slot holds a value's index + 1, or 0 when empty. */
    private int[] slots = new int[32];

    private IndexedSet(Equality<? super T> equality) {
        this.equality = equality;
    }

    /** An empty set of values told apart by their {@code equals}. */
    public static <T> IndexedSet<T> byValue() {
        return new IndexedSet<>(BY_VALUE);
    }

    /** A set whose index 0 is {@code zero}, as every OTLP dictionary table's is. */
    public static <T> IndexedSet<T> startingWith(T zero) {
        IndexedSet<T> set = byValue();
        set.indexOf(zero);
        return set;
    }

    /** An empty set of int arrays told apart by their elements. */
    public static IndexedSet<int[]> byContents() {
        return new IndexedSet<>(BY_CONTENTS);
    }

    /**
     * The index of {@code value}, adding it when it is new: then the index is the size before, which is how a caller
     * that keeps something beside each value tells that it is new.
     */
    public int indexOf(T value) {
        int hash = spread(equality.hash(value));
        int mask = slots.length - 1;
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            int held = slots[slot] - 1;
            if (held < 0) {
                return add(value, hash, slot);
            }
            if (hashes[held] == hash && equality.same(values.get(held), value)) {
                return held;
            }
        }
    }

    /** The value at {@code index}. */
    public T get(int index) {
        return values.get(index);
    }

    public int size() {
        return values.size();
    }

    /** The values in index order, as they are now and as they grow. */
    public List<T> values() {
        return Collections.unmodifiableList(values);
    }

    private int add(T value, int hash, int slot) {
        int index = values.size();
        values.add(value);
        if (index == hashes.length) {
            hashes = Arrays.copyOf(hashes, index * 2);
        }
        hashes[index] = hash;
        slots[slot] = index + 1;
        // at most half full, so that probes stay short
        if (values.size() * 2 > slots.length) {
            grow();
        }
        return index;
    }

    private void grow() {
        slots = new int[slots.length * 2];
        int mask = slots.length - 1;
        for (int index = 0; index < values.size(); index++) {
            int slot = hashes[index] & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = index + 1;
        }
    }

    /** Spreads a hash over the low bits the slots are picked by: records of small ints hash close together. */
    private static int spread(int hash) {
        int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
