package chunkrelay.translate.view;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GroupSlotsTest {
    /** The key columns, as a sample group table keeps them. */
    private final List<long[]> keys = new ArrayList<>();
    private final GroupSlots slots = new GroupSlots((group, stack, thread, link, type, period) -> {
        long[] key = keys.get(group);
        return key[0] == stack && key[1] == thread && key[2] == link && key[3] == type && key[4] == period;
    });

    private int add(int stack, int thread, int link, int type, long period) {
        int group = keys.size();
        keys.add(new long[] {stack, thread, link, type, period});
        slots.put(group, stack, thread, link, type, period);
        return group;
    }

    @Test
    void everyGroupOfAFleetsHourIsFoundByItsKeyAfterTheSlotsGrew() {
        for (int stack = 0; stack < 400; stack++) {
            for (int thread = 0; thread < 200; thread++) {
                add(stack, thread, -1, 0, 10_000_000L);
            }
        }
        for (int stack = 0; stack < 400; stack++) {
            for (int thread = 0; thread < 200; thread++) {
                assertEquals(stack * 200 + thread, slots.find(stack, thread, -1, 0, 10_000_000L));
            }
        }
    }

    @Test
    void keysThatDifferInOneFieldAreDifferentGroups() {
        int group = add(3, 5, 7, 1, 10_000_000L);
        assertEquals(group, slots.find(3, 5, 7, 1, 10_000_000L));
        assertEquals(-1, slots.find(4, 5, 7, 1, 10_000_000L));
        assertEquals(-1, slots.find(3, 6, 7, 1, 10_000_000L));
        assertEquals(-1, slots.find(3, 5, -1, 1, 10_000_000L));
        assertEquals(-1, slots.find(3, 5, 7, 0, 10_000_000L));
        assertEquals(-1, slots.find(3, 5, 7, 1, 20_000_000L));
    }

    @Test
    void aFleetsSmallStackAndThreadNumbersSpreadOverTheSlots() {
        // 320,000 keys over 2^20 slots: a record's hash (31 * stack + thread in its low bits) gave ~13,000 distinct
        // values, so dozens of keys each; a spread hash gives a few at most
        int[] perSlot = new int[1 << 20];
        int most = 0;
        for (int stack = 0; stack < 400; stack++) {
            for (int thread = 0; thread < 800; thread++) {
                int slot = GroupSlots.hash(stack, thread, -1, 0, 10_000_000L) & (perSlot.length - 1);
                most = Math.max(most, ++perSlot[slot]);
            }
        }
        assertTrue(most <= 8, "up to " + most + " keys in one slot");
    }
}
