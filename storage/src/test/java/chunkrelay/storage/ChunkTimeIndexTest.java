package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The index by time and the rollup objects on a real S3 server (S3Proxy in memory), with time moved by a test clock:
 * a chunk filed once and found from every minute it overlaps, late only for minutes that may have settled, and rollup
 * versions written once, the largest the newest.
 */
@ExtendWith(InMemoryS3.class)
class ChunkTimeIndexTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
    private static final long T0_NANOS = T0.getEpochSecond() * SECOND;

    private final TestClock clock = new TestClock(T0);
    private ObjectStore store;
    private TimeBuckets buckets;
    private ChunkTimeIndex index;

    @BeforeEach
    void openStore(ObjectStore store) {
        this.store = store;
        buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        index = new ChunkTimeIndex(store, buckets, Duration.ofSeconds(15));
    }

    private static ArchiveKey key(String chunk, long firstNanos) {
        return ArchiveKey.of("1", Instant.ofEpochSecond(0, firstNanos), "0e4f6a8b2c1d4e3f9a7b5c6d8e0f1a2b", chunk);
    }

    @Test
    void aChunkIsFiledOnceAndFoundFromEveryMinuteItsSamplesOverlapWithItsSpan() {
        long first = T0_NANOS - 3 * MINUTE + 50 * SECOND;
        long last = first + 66 * SECOND;
        index.record(key("a1", first), first, last);

        assertEquals(1, index.startingIn("1", T0_NANOS - 3 * MINUTE).size());
        assertEquals(0, index.startingIn("1", T0_NANOS - 2 * MINUTE).size(), "one entry, where it starts");
        List<ChunkTimeIndex.Entry> inFirst = index.overlapping("1", T0_NANOS - 3 * MINUTE);
        List<ChunkTimeIndex.Entry> inSecond = index.overlapping("1", T0_NANOS - 2 * MINUTE);
        List<ChunkTimeIndex.Entry> inThird = index.overlapping("1", T0_NANOS - MINUTE);
        assertEquals(1, inFirst.size());
        assertEquals(1, inSecond.size());
        assertEquals(0, inThird.size(), "66 s from 50 s into a minute end in the next");
        assertEquals(key("a1", first), inSecond.get(0).key());
        assertEquals(first, inSecond.get(0).firstSampleNanos());
        assertEquals(last, inSecond.get(0).lastSampleNanos());
        assertEquals(T0_NANOS - 2 * MINUTE, inSecond.get(0).minuteNanos());
        assertEquals(List.of(LocalDate.of(2026, 11, 26)), index.days("1"));
        assertEquals(List.of(T0_NANOS - 3 * MINUTE), index.minutes("1", LocalDate.of(2026, 11, 26)));
    }

    @Test
    void onlyMinutesThatMayHaveSettledGetALateEntry() {
        // the minute before now settles 45 s after it ends; a chunk counts as late 15 s before that
        long recent = T0_NANOS - MINUTE + 10 * SECOND;
        index.record(key("b1", recent), recent, recent + 5 * SECOND);
        assertEquals(List.of(), index.late("1"), "its minute settles in 45 s");
        assertFalse(buckets.settled(T0_NANOS - MINUTE));

        clock.advance(Duration.ofSeconds(31));
        long sameMinute = T0_NANOS - MINUTE + 20 * SECOND;
        index.record(key("b2", sameMinute), sameMinute, sameMinute + 5 * SECOND);
        List<ChunkTimeIndex.Entry> late = index.late("1");
        assertEquals(1, late.size(), "within the margin before the minute settles");
        assertEquals("b2", late.get(0).key().chunkId());
        assertEquals(T0_NANOS - MINUTE, late.get(0).minuteNanos());

        clock.advance(Duration.ofSeconds(14));
        assertTrue(buckets.settled(T0_NANOS - MINUTE));
        index.removeLate(late.get(0));
        assertEquals(List.of(), index.late("1"));
        index.recordForRebuild(key("b3", sameMinute), sameMinute, sameMinute + SECOND);
        assertEquals(List.of(), index.late("1"), "a rebuild's caller builds the rollups itself");
        assertEquals(3, index.startingIn("1", T0_NANOS - MINUTE).size());
    }

    @Test
    void rollupVersionsAreWrittenOnceAndTheOneWithMoreChunksIsTheNewest() {
        RollupObjects rollups = new RollupObjects(store);
        long minute = T0_NANOS + 3 * MINUTE;
        RollupObjects.Version five = new RollupObjects.Version("1", RollupTier.MINUTE, minute, 5);
        RollupObjects.Version seven = new RollupObjects.Version("1", RollupTier.MINUTE, minute, 7);
        assertTrue(rollups.write(five, new byte[] {5}));
        assertFalse(rollups.write(five, new byte[] {5}), "a second builder of the same version writes nothing");
        assertTrue(rollups.write(seven, new byte[] {7}));
        RollupObjects.Version hour = new RollupObjects.Version("1", RollupTier.HOUR, T0_NANOS, 12);
        assertTrue(rollups.write(hour, new byte[] {12}));

        LocalDate day = LocalDate.of(2026, 11, 26);
        assertEquals(Map.of(minute, seven), rollups.newest("1", day, RollupTier.MINUTE, ""));
        assertEquals(Map.of(minute, seven), rollups.newest("1", day, RollupTier.MINUTE, "10"));
        assertEquals(Map.of(), rollups.newest("1", day, RollupTier.MINUTE, "11"));
        assertEquals(Map.of(T0_NANOS, hour), rollups.newest("1", day, RollupTier.HOUR, ""));
        assertEquals(7, rollups.read(seven).orElseThrow()[0]);
        rollups.remove(five);
        assertTrue(rollups.read(five).isEmpty());
        assertEquals(List.of(seven), rollups.versions("1", day, RollupTier.MINUTE, ""));
    }
}
