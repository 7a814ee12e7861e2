package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay's time model: a time on a boundary starts its bucket, days roll over at midnight UTC whatever a clock's
 * zone, a bucket settles exactly {@code settle} after its last minute ends, a chunk is late, a minute open, ahead of
 * the clock or expired exactly at its bound, and every name parses back to its bucket, with the names the bucket has
 * always held.
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
        assertEquals(T0 - 3 * MINUTE, TimeBuckets.bucketOf(RollupTier.HOUR, T0));
        assertEquals(T0 + 1_000, TimeBuckets.nanos(Instant.parse("2026-11-26T10:03:00.000001Z")));
    }

    @Test
    void aTimesMinuteOfItsHourCountsFromTheHoursStartAndMapsBack() {
        long hour = TimeBuckets.nanos(Instant.parse("2026-11-26T10:00:00Z"));
        assertEquals(0, TimeBuckets.minuteOfHour(hour));
        assertEquals(59, TimeBuckets.minuteOfHour(hour - 1));
        long at = TimeBuckets.nanos(Instant.parse("2026-11-26T10:37:59.999Z"));
        assertEquals(37, TimeBuckets.minuteOfHour(at));
        assertEquals(TimeBuckets.minuteOf(at), TimeBuckets.minuteOfHour(hour, 37));
        assertEquals(TimeBuckets.nanos(Instant.parse("2026-11-26T11:00:00Z")), TimeBuckets.endOf(RollupTier.HOUR, hour));
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
        assertEquals(midnight, TimeBuckets.bucketOf(RollupTier.DAY, midnight));
        assertEquals(midnight - DAY, TimeBuckets.bucketOf(RollupTier.DAY, lastNanosOfDay));
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
        assertFalse(buckets.settled(RollupTier.HOUR, TimeBuckets.bucketOf(RollupTier.HOUR, T0)),
                "the hour has minutes to go");

        long hour = TimeBuckets.bucketOf(RollupTier.HOUR, T0);
        TestClock hourClock = new TestClock(Instant.ofEpochSecond(0, hour + HOUR + 45 * SECOND - 1));
        TimeBuckets hourBuckets = new TimeBuckets(hourClock, Duration.ofSeconds(45));
        assertFalse(hourBuckets.settled(RollupTier.HOUR, hour));
        hourClock.advance(Duration.ofNanos(1));
        assertTrue(hourBuckets.settled(RollupTier.HOUR, hour), "its last minute, 10:59, has settled");
        assertFalse(hourBuckets.settled(RollupTier.DAY, TimeBuckets.bucketOf(RollupTier.DAY, hour)));
    }

    @Test
    void everyNameParsesBackToItsBucket() {
        SplittableRandom random = new SplittableRandom(44);
        List<Long> times = new ArrayList<>(List.of(0L, T0, T0 - 1, TimeBuckets.bucketOf(RollupTier.DAY, T0) + DAY - 1));
        for (int i = 0; i < 10_000; i++) {
            times.add(random.nextLong(0, 200L * 365 * DAY));
        }
        for (long time : times) {
            LocalDate day = TimeBuckets.dayOf(time);
            for (RollupTier tier : RollupTier.values()) {
                long bucket = TimeBuckets.bucketOf(tier, time);
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
                new RollupObjects.Version("1", RollupTier.HOUR, TimeBuckets.bucketOf(RollupTier.HOUR, T0), 7200).key());
        assertEquals("rollups/1/2026-11-26/d.172800",
                new RollupObjects.Version("1", RollupTier.DAY, TimeBuckets.bucketOf(RollupTier.DAY, T0), 172800).key());
        assertEquals("1/2026-11-26/1003/", ChunkTimeIndex.minuteFolder("1", T0));
        // the span log's minute folders were written with this formatter: the same bytes for every time
        DateTimeFormatter spanLogMinute = DateTimeFormatter.ofPattern("yyyy-MM-dd/HHmm").withZone(ZoneOffset.UTC);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long time = random.nextLong(0, 250L * 365 * DAY);
            assertEquals(spanLogMinute.format(Instant.ofEpochSecond(0, time)), TimeBuckets.minutePath(time));
        }
    }

    @Test
    void theFirstWholeBucketFromATimeIsTheTimeItselfOnlyOnABoundary() {
        assertEquals(T0, TimeBuckets.firstBucketFrom(RollupTier.MINUTE, T0));
        assertEquals(T0, TimeBuckets.firstBucketFrom(RollupTier.MINUTE, T0 - 1));
        assertEquals(T0 + MINUTE, TimeBuckets.firstBucketFrom(RollupTier.MINUTE, T0 + 1));
        long hour = TimeBuckets.bucketOf(RollupTier.HOUR, T0);
        assertEquals(hour + HOUR, TimeBuckets.firstBucketFrom(RollupTier.HOUR, T0));
        assertEquals(hour, TimeBuckets.firstBucketFrom(RollupTier.HOUR, hour));
        long midnight = TimeBuckets.bucketOf(RollupTier.DAY, T0);
        assertEquals(midnight, TimeBuckets.firstBucketFrom(RollupTier.DAY, midnight - DAY + 1));
        assertEquals(midnight + DAY, TimeBuckets.firstBucketFrom(RollupTier.DAY, midnight + 1));
        assertEquals(-MINUTE, TimeBuckets.firstBucketFrom(RollupTier.MINUTE, -2 * MINUTE + 1), "before 1970");
        assertEquals(0, TimeBuckets.firstBucketFrom(RollupTier.MINUTE, -1));
    }

    @Test
    void instantsFallInTheSecondMinuteAndDayJavaTimeGivesThemInUtc() {
        List<Instant> instants = new ArrayList<>(List.of(Instant.parse("2026-11-27T00:00:00Z"),
                Instant.parse("2026-11-27T00:00:00Z").minusNanos(1), Instant.EPOCH, Instant.EPOCH.minusNanos(1),
                Instant.parse("9999-12-31T23:59:59.999999999Z"), Instant.parse("1600-01-01T00:00:00Z")));
        SplittableRandom random = new SplittableRandom(48);
        for (int i = 0; i < 10_000; i++) {
            instants.add(Instant.ofEpochSecond(random.nextLong(-20_000L * 365 * 86_400, 20_000L * 365 * 86_400),
                    random.nextInt(1_000_000_000)));
        }
        for (Instant instant : instants) {
            assertEquals(instant.truncatedTo(ChronoUnit.SECONDS), TimeBuckets.secondOf(instant), instant.toString());
            assertEquals(instant.truncatedTo(ChronoUnit.MINUTES), TimeBuckets.minuteOf(instant), instant.toString());
            assertEquals(LocalDate.ofInstant(instant, ZoneOffset.UTC), TimeBuckets.dayOf(instant), instant.toString());
        }
        Instant midnight = Instant.parse("2026-11-27T00:00:00Z");
        assertEquals(TimeBuckets.dayOf(TimeBuckets.nanos(midnight) - 1), TimeBuckets.dayOf(midnight.minusNanos(1)));
        assertEquals(LocalDate.of(2026, 11, 26), TimeBuckets.dayOf(midnight.minusNanos(1)));
        assertEquals(LocalDate.of(2026, 11, 27), TimeBuckets.dayOf(midnight));
    }

    @Test
    void aDayEndsAtTheNextMidnightUtc() {
        LocalDate day = LocalDate.of(2026, 11, 26);
        Instant end = TimeBuckets.endOf(day);
        assertEquals(Instant.parse("2026-11-27T00:00:00Z"), end);
        assertEquals(day, TimeBuckets.dayOf(end.minusNanos(1)));
        assertEquals(day.plusDays(1), TimeBuckets.dayOf(end));
        assertEquals(Instant.parse("2025-01-01T00:00:00Z"), TimeBuckets.endOf(LocalDate.of(2024, 12, 31)));
        assertEquals(Instant.EPOCH, TimeBuckets.endOf(LocalDate.of(1969, 12, 31)));
    }

    @Test
    void todayIsTheUtcDayOfNowWhateverTheClocksZone() {
        Instant midnight = Instant.parse("2026-11-27T00:00:00Z");
        TestClock clock = new TestClock(midnight.minusNanos(1));
        TimeBuckets buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        assertEquals(LocalDate.of(2026, 11, 26), buckets.today(), "a nanosecond before midnight");
        clock.advance(Duration.ofNanos(1));
        assertEquals(LocalDate.of(2026, 11, 27), buckets.today(), "at midnight");

        // 14 hours ahead of UTC: the clock's own date is already the 27th at 10:00 UTC on the 26th
        Clock kiritimati = Clock.fixed(Instant.parse("2026-11-26T10:00:00Z"), ZoneId.of("Pacific/Kiritimati"));
        assertEquals(LocalDate.of(2026, 11, 27), LocalDate.now(kiritimati));
        assertEquals(LocalDate.of(2026, 11, 26), new TimeBuckets(kiritimati, Duration.ofSeconds(45)).today());
    }

    @Test
    void aChunkIsLateForAMinuteFromTheMarginBeforeItSettles() {
        Duration margin = Duration.ofSeconds(15);
        long lateFrom = T0 + MINUTE + 45 * SECOND - 15 * SECOND;
        TestClock clock = new TestClock(Instant.ofEpochSecond(0, lateFrom - 1));
        TimeBuckets buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        assertFalse(buckets.late(T0, margin), "a nanosecond before the margin");
        clock.advance(Duration.ofNanos(1));
        assertTrue(buckets.late(T0, margin), "at the margin");
        assertFalse(buckets.settled(T0), "late before the minute settles");
        assertFalse(buckets.late(T0 + MINUTE, margin), "the next minute");
        assertTrue(buckets.late(T0 + MINUTE, Duration.ofSeconds(75)), "the next minute, with a margin of 75 s");
    }

    @Test
    void aMinuteIsOpenUntilItSettlesUnlessItLiesTooFarAheadOfTheClock() {
        TestClock clock = new TestClock(Instant.ofEpochSecond(0, T0 - 1));
        TimeBuckets buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        long tenAhead = T0 + TimeBuckets.MAX_AHEAD_MINUTES * MINUTE;
        assertTrue(buckets.aheadOfClock(tenAhead), "ten minutes after a nanosecond before T0");
        assertFalse(buckets.open(tenAhead));
        assertFalse(buckets.aheadOfClock(tenAhead - MINUTE));
        assertTrue(buckets.open(tenAhead - MINUTE));
        clock.advance(Duration.ofNanos(1));
        assertFalse(buckets.aheadOfClock(tenAhead), "exactly ten minutes ahead");
        assertTrue(buckets.open(tenAhead));
        assertTrue(buckets.aheadOfClock(tenAhead + MINUTE));

        assertTrue(buckets.open(T0 - MINUTE), "the minute before, ended but not settled");
        clock.advance(Duration.ofSeconds(45).minusNanos(1));
        assertTrue(buckets.open(T0 - MINUTE), "a nanosecond before it settles");
        clock.advance(Duration.ofNanos(1));
        assertFalse(buckets.open(T0 - MINUTE), "settled");
        assertTrue(buckets.open(T0));
    }

    @Test
    void whatStoodInForAnOpenMinuteExpiresAMinuteAfterItSettled() {
        long expiresAt = T0 + MINUTE + 45 * SECOND + TimeBuckets.KEEP_AFTER_SETTLED_SECONDS * SECOND;
        assertEquals(T0 + 2 * MINUTE + 45 * SECOND, expiresAt);
        TestClock clock = new TestClock(Instant.ofEpochSecond(0, expiresAt - 1));
        TimeBuckets buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        assertTrue(buckets.settled(T0));
        assertFalse(buckets.expired(T0), "a nanosecond before");
        clock.advance(Duration.ofNanos(1));
        assertTrue(buckets.expired(T0), "at its expiry");
        assertFalse(buckets.expired(T0 + MINUTE));
    }

    @Test
    void aChunkCountsFromReceiptInOpenMinutesAndSettledOnesUpToTenMinutesBack() {
        TestClock clock = new TestClock(Instant.ofEpochSecond(0, T0));
        TimeBuckets buckets = new TimeBuckets(clock, Duration.ofSeconds(45));
        long tenBack = T0 - TimeBuckets.RECEIPT_LOOKBACK_MINUTES * MINUTE;
        assertTrue(buckets.countsFromReceipt(T0), "open");
        assertTrue(buckets.countsFromReceipt(tenBack), "settled, exactly ten minutes back");
        assertFalse(buckets.countsFromReceipt(tenBack - 1), "a nanosecond further back");
        assertFalse(buckets.countsFromReceipt(T0 + 11 * MINUTE), "too far ahead of the clock");

        long expiresAt = T0 + MINUTE + 45 * SECOND + TimeBuckets.KEEP_AFTER_SETTLED_SECONDS * SECOND
                + TimeBuckets.RECEIPT_LOOKBACK_MINUTES * MINUTE;
        clock.advance(Duration.ofNanos(expiresAt - T0 - 1));
        assertTrue(buckets.expired(T0));
        assertFalse(buckets.expiredWhileCounting(T0), "a nanosecond before");
        clock.advance(Duration.ofNanos(1));
        assertTrue(buckets.expiredWhileCounting(T0), "the lookback after its expiry");
    }
}
