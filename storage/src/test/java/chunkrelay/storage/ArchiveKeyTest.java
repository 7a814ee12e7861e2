package chunkrelay.storage;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A stem handed around as a string leads back to the same key, and nothing else passes for a stem. */
class ArchiveKeyTest {

    @Test
    void stemLeadsBackToItsKey() {
        ArchiveKey key = new ArchiveKey("42", LocalDate.of(2026, 11, 22), "7c2a0b", "b31f9e");
        assertEquals("42/2026-11-22/7c2a0b/b31f9e", key.stem());
        assertEquals(key, ArchiveKey.ofStem(key.stem()));
    }

    @Test
    void refusesStringsThatAreNotStems() {
        assertThrows(IllegalArgumentException.class, () -> ArchiveKey.ofStem("42/2026-11-22/7c2a0b"));
        assertThrows(IllegalArgumentException.class, () -> ArchiveKey.ofStem("42/2026-11-22/7c2a0b/b31f/x"));
        assertThrows(IllegalArgumentException.class, () -> ArchiveKey.ofStem("42/2026-13-01/7c2a0b/b31f"));
        assertThrows(IllegalArgumentException.class, () -> ArchiveKey.ofStem("42/2026-11-22/../b31f"));
        assertThrows(IllegalArgumentException.class, () -> ArchiveKey.ofStem("42/2026-11-22//b31f"));
    }
}
