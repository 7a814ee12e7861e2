package chunkrelay.translate.view;

/**
 * The index of a merge's sample groups by key: open addressing over primitive slots, each holding a group's number,
 * the key's columns kept by the caller ({@link SampleGroupTable}) and compared through {@link Keys}. A fleet's hour
 * holds hundreds of thousands of groups and looks one up for every group of every rollup merged: a map keyed by a
 * record boxed a key and an index per lookup, and its hash (the record's, a sum of small ints times powers of 31)
 * put many keys of a fleet's small stack and thread numbers in one bucket. Here the key's fields are mixed into a
 * well-spread hash and nothing is allocated per lookup. Not thread-safe.
 */
final class GroupSlots {
    private static final int INITIAL = 64;

    /** The key columns of the groups numbered so far. */
    interface Keys {
        boolean matches(int group, int stack, int thread, int link, int periodType, long period);
    }

    private final Keys keys;
    /**
     * Per slot, the key's hash in the high half and the group's number + 1 in the low half, 0 for an empty slot: one
     * memory read per slot probed, as the slots of a fleet's hour are far larger than a cache. The length is a power of
     * two, the slots at most half full.
     */
    private long[] slots = new long[INITIAL];
    private int size;

    GroupSlots(Keys keys) {
        this.keys = keys;
    }

    /** The group of a key, or -1 when there is none. */
    int find(int stack, int thread, int link, int periodType, long period) {
        int hash = hash(stack, thread, link, periodType, period);
        int mask = slots.length - 1;
        long entry;
        for (int slot = hash & mask; (entry = slots[slot]) != 0; slot = (slot + 1) & mask) {
            int group = (int) entry - 1;
            if ((int) (entry >>> 32) == hash && keys.matches(group, stack, thread, link, periodType, period)) {
                return group;
            }
        }
        return -1;
    }

    /** Indexes a new group under its key, which {@link #find} must not know. */
    void put(int group, int stack, int thread, int link, int periodType, long period) {
        if (2 * (size + 1) > slots.length) {
            resize(slots.length * 2);
        }
        int hash = hash(stack, thread, link, periodType, period);
        insert((long) hash << 32 | (group + 1L));
        size++;
    }

    private void insert(long entry) {
        int mask = slots.length - 1;
        int slot = (int) (entry >>> 32) & mask;
        while (slots[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        slots[slot] = entry;
    }

    /** Makes room for {@code groups} keys at least, the slots at most half full. */
    void expect(int groups) {
        int length = slots.length;
        while (length < 2L * groups && length < 1 << 30) {
            length *= 2;
        }
        if (length > slots.length) {
            resize(length);
        }
    }

    private void resize(int length) {
        long[] old = slots;
        slots = new long[length];
        for (long entry : old) {
            if (entry != 0) {
                insert(entry);
            }
        }
    }

    /** The fields mixed so that keys differing in any bit of any field spread over the slots' low bits. */
    static int hash(int stack, int thread, int link, int periodType, long period) {
        long h = stack;
        h = h * 0x9E3779B97F4A7C15L + thread;
        h = h * 0x9E3779B97F4A7C15L + link;
        h = h * 0x9E3779B97F4A7C15L + periodType;
        h = h * 0x9E3779B97F4A7C15L + period;
        // the high bits of the products hold the fields' mix: fold them down (murmur3's finaliser)
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int) h;
    }
}
