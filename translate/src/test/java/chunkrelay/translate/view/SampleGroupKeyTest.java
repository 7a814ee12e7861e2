package chunkrelay.translate.view;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SampleGroupKeyTest {
    /**
     * A minute of 400 threads that all run the same 2 000 stacks (a fleet of one service): with the record's own
     * {@code 31 * stack + thread}, stack s on thread t and stack s + 1 on thread t - 31 share a hash, 13 keys each.
     */
    @Test
    void aFleetsGroupsHaveNearlyAsManyHashesAsGroups() {
        Set<Integer> hashes = new HashSet<>();
        int keys = 0;
        for (int stack = 0; stack < 2_000; stack++) {
            for (int thread = 0; thread < 400; thread++) {
                hashes.add(new SampleGroupTable.GroupKey(stack, thread, -1, "cpu", 10_101_010L).hashCode());
                keys++;
            }
        }
        assertTrue(hashes.size() > keys * 0.999, hashes.size() + " hashes for " + keys + " groups");
    }

    @Test
    void equalGroupsHashAlikeAndEachPartOfTheKeyCounts() {
        SampleGroupTable.GroupKey key = new SampleGroupTable.GroupKey(7, 3, 2, "cpu", 10L);
        assertEquals(key.hashCode(), new SampleGroupTable.GroupKey(7, 3, 2, "cpu", 10L).hashCode());
        assertNotEquals(key.hashCode(), new SampleGroupTable.GroupKey(8, 3, 2, "cpu", 10L).hashCode());
        assertNotEquals(key.hashCode(), new SampleGroupTable.GroupKey(7, 4, 2, "cpu", 10L).hashCode());
        assertNotEquals(key.hashCode(), new SampleGroupTable.GroupKey(7, 3, -1, "cpu", 10L).hashCode());
        assertNotEquals(key.hashCode(), new SampleGroupTable.GroupKey(7, 3, 2, "wall", 10L).hashCode());
        assertNotEquals(key.hashCode(), new SampleGroupTable.GroupKey(7, 3, 2, "cpu", 11L).hashCode());
        assertEquals(new SampleGroupTable.GroupKey(1, 1, 1, null, 1L).hashCode(),
                new SampleGroupTable.GroupKey(1, 1, 1, null, 1L).hashCode());
    }
}
