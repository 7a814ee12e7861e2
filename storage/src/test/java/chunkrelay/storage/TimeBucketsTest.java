package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The minutes, hours and days of the bucket: a time on a boundary starts its bucket, days roll over at midnight UTC,
 * a bucket settles exactly {@code settle} after its last minute ends, and every name parses back to its bucket, with
 * the names the bucket has always held.
 */
class TimeBucketsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final long T0 = TimeBuckets.nanos(Instant.parse("2026-11-26T10:03:00Z"));

    @Test
    void aTimeExactlyOnAMinuteBoundaryStartsThatMinute() {
        assertEquals(T0, TimeBuckets.minuteOf(T0));
        assertEquals(T0 - MINUTE, TimeBuckets.minuteOf(T0 - 1));
        assertEquals(T0, TimeBuckets.minuteOf(T0 + MINUTE - 1));
        assertEquals("1003", TimeBuckets.name(RollupTier.MINUTE, T0));
        assertEquals("1002", TimeBuckets.name(RollupTier.MINUTE, T0 - 1));
        assertEquals(T0 - 3 * MINUTE, RollupTier.HOUR.bucketOf(T0));
        assertEquals(T0 + 1_000, TimeBuckets.nanos(Instant.parse("2026-11-26T10:03:00.000001Z")));
    }

    @Test
    void theDayRollsOverFrom2359To0000Utc() {
        long lastNanosOfDay = TimeBuckets.nanos(Instant.parse("2026-11-27T00:00:00Z")) - 1;
        assertEquals(LocalDate.of(2026, 11, 26), TimeBuckets.dayOf(lastNanosOfDay));
        assertEquals("2359", TimeBuckets.name(RollupTier.MINUTE, lastNanosOfDay));
        assertEquals("23", TimeBuckets.name(RollupTier.HOUR, lastNanosOfDay));
        assertEquals("2026-11-26/2359", TimeBuckets.minutePath(lastNanosOfDay));

        long midnight = lastNanosOfDay + 1;
        assertEquals(LocalDate.of(2026, 11, 27), TimeBuckets.dayOf(midnight));
        assertEquals("0000", TimeBuckets.name(RollupTier.MINUTE, midnight));
        assertEquals("00", TimeBuckets.name(RollupTier.HOUR, midnight));
        assertEquals("2026-11-27/0000", TimeBuckets.minutePath(midnight));
        assertEquals(midnight, RollupTier.DAY.bucketOf(midnight));
        assertEquals(midnight - DAY, RollupTier.DAY.bucketOf(lastNanosOfDay));
    }

    @Test
    void aMinuteSettlesExactlySettleAfterItEndsAndAnHourOrDayWithItsLastMinute() {
        TestClock clock = new TestClock(Instant.ofEpochSecond(0, T0 + MINUTE + 45 * SECOND - 1));
        TimeBuckets buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        assertEquals(T0 + MINUTE + 45 * SECOND, buckets.settlesAt(T0));
        assertFalse(buckets.settled(T0), "one nanosecond before the settle point");
        assertEquals(T0 - MINUTE, buckets.lastSettledMinute());

        clock.advance(Duration.ofNanos(1));
        assertTrue(buckets.settled(T0), "at the settle point");
        assertEquals(T0, buckets.lastSettledMinute());
        assertFalse(buckets.settled(RollupTier.HOUR, RollupTier.HOUR.bucketOf(T0)), "the hour has minutes to go");

        long hour = RollupTier.HOUR.bucketOf(T0);
        TestClock hourClock = new TestClock(Instant.ofEpochSecond(0, hour + HOUR + 45 * SECOND - 1));
        TimeBuckets hourBuckets = new TimeBuckets(hourClock, Duration.ofSeconds(45));
        assertFalse(hourBuckets.settled(RollupTier.HOUR, hour));
        hourClock.advance(Duration.ofNanos(1));
        assertTrue(hourBuckets.settled(RollupTier.HOUR, hour), "its last minute, 10:59, has settled");
        assertFalse(hourBuckets.settled(RollupTier.DAY, RollupTier.DAY.bucketOf(hour)));
    }

    @Test
    void everyNameParsesBackToItsBucket() {
        SplittableRandom random = new SplittableRandom(44);
        List<Long> times = new ArrayList<>(List.of(0L, T0, T0 - 1, RollupTier.DAY.bucketOf(T0) + DAY - 1));
        for (int i = 0; i < 10_000; i++) {
            times.add(random.nextLong(0, 200L * 365 * DAY));
        }
        for (long time : times) {
            LocalDate day = TimeBuckets.dayOf(time);
            for (RollupTier tier : RollupTier.values()) {
                long bucket = tier.bucketOf(time);
                assertEquals(bucket, TimeBuckets.parse(tier, day, TimeBuckets.name(tier, bucket)), tier + " " + time);
                assertEquals(day, TimeBuckets.dayOf(bucket));
            }
        }
    }

    @Test
    void whatIsNotABucketsNameIsRefused() {
        LocalDate day = LocalDate.of(2026, 11, 26);
        for (String name : List.of("2400", "1060", "103", "10030", "1a03", "+103", "")) {
            assertThrows(IllegalArgumentException.class, () -> TimeBuckets.parse(RollupTier.MINUTE, day, name), name);
        }
        for (String name : List.of("24", "7", "+7", "100", "")) {
            assertThrows(IllegalArgumentException.class, () -> TimeBuckets.parse(RollupTier.HOUR, day, name), name);
        }
        assertThrows(IllegalArgumentException.class, () -> TimeBuckets.parse(RollupTier.DAY, day, "00"));
    }

    @Test
    void theBucketsObjectNamesAreTheOnesItHolds() {
        assertEquals("rollups/1/2026-11-26/m1003.120",
                new RollupObjects.Version("1", RollupTier.MINUTE, T0, 120).key());
        assertEquals("rollups/1/2026-11-26/h10.7200",
                new RollupObjects.Version("1", RollupTier.HOUR, RollupTier.HOUR.bucketOf(T0), 7200).key());
        assertEquals("rollups/1/2026-11-26/d.172800",
                new RollupObjects.Version("1", RollupTier.DAY, RollupTier.DAY.bucketOf(T0), 172800).key());
        assertEquals("1/2026-11-26/1003/", ChunkTimeIndex.minuteFolder("1", T0));
        // the span log's minute folders were written with this formatter: the same bytes for every time
        DateTimeFormatter spanLogMinute = DateTimeFormatter.ofPattern("yyyy-MM-dd/HHmm").withZone(ZoneOffset.UTC);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long time = random.nextLong(0, 250L * 365 * DAY);
            assertEquals(spanLogMinute.format(Instant.ofEpochSecond(0, time)), TimeBuckets.minutePath(time));
        }
    }
}
