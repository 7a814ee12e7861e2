package chunkrelay.storage;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The relay's time model, in one place: the UTC minutes, hours and days it files, counts and rolls up by, and when
 * one of them has settled. Every module that sees {@code storage} asks it rather than dividing time itself
 * ({@code chunk} and {@code translate} do not see it: a span's longest length and a timeline's steps are theirs).
 *
 * <p>The static part is pure arithmetic on Unix nanoseconds (or on {@link Instant}s where a time may lie beyond
 * nanoseconds' 292 years): the bucket of a tier holding a time, its names in the bucket ({@code yyyy-mm-dd} for a
 * day's folder, {@code HHmm} for a minute and {@code HH} for an hour within it, nothing for the day itself) and
 * their parsing, a chunk's day (the UTC day of its first sample). Days roll over at midnight UTC whatever a clock's
 * zone.
 *
 * <p>The instance adds the relay's clock and {@code settle}:
 * <ul>
 *   <li><em>settled</em>: a minute {@code settle} after it ends, an hour or day when its last minute has. Rollups of
 *   a bucket are built once it has settled.</li>
 *   <li><em>late</em>: a chunk filed into a minute that settles within a margin of now ({@link ChunkTimeIndex}).</li>
 *   <li><em>open</em>: a minute not settled yet and not more than {@value #MAX_AHEAD_MINUTES} minutes ahead of the
 *   clock (an SDK whose clock runs ahead): its chunks are merged into partial rollups as they come. Such a partial is
 *   kept {@value #KEEP_AFTER_SETTLED_SECONDS} s after its minute settles, time for the builder to write the
 *   minute's rollup, then it has <em>expired</em>.</li>
 *   <li><em>counted from receipt</em>: a chunk acknowledged now counts at once in a partial of each minute it reaches
 *   that is open, or settled up to {@value #RECEIPT_LOOKBACK_MINUTES} minutes back (a fleet just pointed at the
 *   relay sends its last minutes at once); such a partial holding chunks not derived yet expires that much later.
 *   </li>
 *   <li><em>today</em>: the UTC day of now.</li>
 *   <li><em>a quota minute</em>: a project's per-minute quotas count in the UTC minute of the relay's clock that
 *   {@link #now()} lies in ({@link #minuteOf}), whether one relay counts them or replicas share them in Redis, so
 *   both agree on when a window closes.</li>
 * </ul>
 * The sizes of the buckets are {@link RollupTier}'s. Thread-safe.
 */
public final class TimeBuckets {
    public static final long SECOND_NANOS = 1_000_000_000L;
    public static final long MINUTE_NANOS = 60 * SECOND_NANOS;
    public static final long HOUR_NANOS = 60 * MINUTE_NANOS;
    public static final long DAY_NANOS = 24 * HOUR_NANOS;
    /** How far ahead of the clock an open minute may lie: an SDK's clock that runs ahead. */
    public static final long MAX_AHEAD_MINUTES = 10;
    /** How long after its minute settles a partial rollup stands in for the rollup the builder writes. */
    public static final long KEEP_AFTER_SETTLED_SECONDS = 60;
    /** How far back into settled minutes a chunk acknowledged now still counts from receipt in a partial. */
    public static final long RECEIPT_LOOKBACK_MINUTES = 10;
    private static final long SECONDS_PER_MINUTE = 60;
    private static final long SECONDS_PER_DAY = 24 * 60 * SECONDS_PER_MINUTE;
    private static final DateTimeFormatter HOUR_MINUTE = DateTimeFormatter.ofPattern("HHmm").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("HH").withZone(ZoneOffset.UTC);

    private final Clock clock;
    private final Duration settle;

    /**
     * @param clock  the relay's clock, which says what has settled
     * @param settle how long after a minute ends it settles (its rollup is built)
     */
    public TimeBuckets(Clock clock, Duration settle) {
        this.clock = clock;
        this.settle = settle;
    }

    /** A time as Unix nanoseconds. */
    public static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND_NANOS + instant.getNano();
    }

    /** The start of the second holding a time: the API's unit, in which ranges are given and answered. */
    public static Instant secondOf(Instant instant) {
        return Instant.ofEpochSecond(instant.getEpochSecond());
    }

    /** The start of the bucket of a tier holding a time: a time on a boundary starts its bucket. */
    public static long bucketOf(RollupTier tier, long nanos) {
        return Math.floorDiv(nanos, tier.bucketNanos()) * tier.bucketNanos();
    }

    /** The start of the first whole bucket of a tier at or after a time: the time itself when on a boundary. */
    public static long firstBucketFrom(RollupTier tier, long nanos) {
        return Math.floorDiv(nanos + tier.bucketNanos() - 1, tier.bucketNanos()) * tier.bucketNanos();
    }

    /** The start of the UTC minute holding a time. */
    public static long minuteOf(long nanos) {
        return bucketOf(RollupTier.MINUTE, nanos);
    }

    /** The start of the UTC minute holding a time, for a time given as an instant. */
    public static Instant minuteOf(Instant instant) {
        return Instant.ofEpochSecond(Math.floorDiv(instant.getEpochSecond(), SECONDS_PER_MINUTE) * SECONDS_PER_MINUTE);
    }

    /** Which minute of its UTC hour holds a time, 0 to 59: the health counts file a chunk's receipt by it. */
    public static int minuteOfHour(long nanos) {
        return (int) ((minuteOf(nanos) - bucketOf(RollupTier.HOUR, nanos)) / MINUTE_NANOS);
    }

    /** The start of minute {@code minute} (0 to 59) of the hour starting at {@code hourNanos}. */
    public static long minuteOfHour(long hourNanos, int minute) {
        return hourNanos + minute * MINUTE_NANOS;
    }

    /** The first instant after the bucket of a tier starting at {@code bucketNanos}. */
    public static long endOf(RollupTier tier, long bucketNanos) {
        return bucketNanos + tier.bucketNanos();
    }

    /** The UTC day holding a time: a chunk's day is its first sample's. */
    public static LocalDate dayOf(long nanos) {
        return LocalDate.ofEpochDay(Math.floorDiv(nanos, DAY_NANOS));
    }

    /** The UTC day holding a time, for a time given as an instant. */
    public static LocalDate dayOf(Instant instant) {
        return LocalDate.ofEpochDay(Math.floorDiv(instant.getEpochSecond(), SECONDS_PER_DAY));
    }

    /** When a UTC day ends: the next midnight, UTC, the first instant not in it. */
    public static Instant endOf(LocalDate day) {
        return Instant.ofEpochSecond((day.toEpochDay() + 1) * SECONDS_PER_DAY);
    }

    /**
     * A bucket's name within its day's folder: {@code HHmm} for a minute and for ten minutes (of its first minute),
     * {@code HH} for an hour, nothing for a day.
     */
    public static String name(RollupTier tier, long bucketNanos) {
        Instant start = Instant.ofEpochSecond(Math.floorDiv(bucketNanos, SECOND_NANOS));
        return switch (tier) {
            case MINUTE, TEN_MINUTES -> HOUR_MINUTE.format(start);
            case HOUR -> HOUR.format(start);
            case DAY -> "";
        };
    }

    /**
     * The start of the bucket of a tier that {@code name} names within {@code day}: the inverse of {@link #name}.
     *
     * @throws IllegalArgumentException when {@code name} is not such a name
     */
    public static long parse(RollupTier tier, LocalDate day, String name) {
        String pattern = switch (tier) {
            case MINUTE -> "([01][0-9]|2[0-3])[0-5][0-9]";
            case TEN_MINUTES -> "([01][0-9]|2[0-3])[0-5]0";
            case HOUR -> "[01][0-9]|2[0-3]";
            case DAY -> "";
        };
        if (!name.matches(pattern)) {
            throw new IllegalArgumentException("not the name of a " + tier.name().toLowerCase(Locale.ROOT)
                    + ": " + name);
        }
        long start = day.toEpochDay() * DAY_NANOS;
        if (tier != RollupTier.DAY) {
            start += Integer.parseInt(name.substring(0, 2)) * HOUR_NANOS;
        }
        if (tier == RollupTier.MINUTE || tier == RollupTier.TEN_MINUTES) {
            start += Integer.parseInt(name.substring(2)) * MINUTE_NANOS;
        }
        return start;
    }

    /** The folder path of a minute, {@code yyyy-mm-dd/HHmm}: where the index, late queue and span log file it. */
    public static String minutePath(long minuteNanos) {
        return dayOf(minuteNanos) + "/" + name(RollupTier.MINUTE, minuteNanos);
    }

    public Duration settle() {
        return settle;
    }

    /** Now on the relay's clock (Unix nanoseconds). */
    public long now() {
        return nanos(clock.instant());
    }

    /** Today on the relay's clock: the UTC day of now, whatever the clock's zone. */
    public LocalDate today() {
        return dayOf(clock.instant());
    }

    /** When a minute settles: {@code settle} after it ends (Unix nanoseconds). */
    public long settlesAt(long minuteNanos) {
        return minuteNanos + MINUTE_NANOS + settle.toNanos();
    }

    /** Whether a minute has settled by the clock. */
    public boolean settled(long minuteNanos) {
        return now() >= settlesAt(minuteNanos);
    }

    /** Whether a minute, hour or day has settled by the clock: its last minute has. */
    public boolean settled(RollupTier tier, long bucketNanos) {
        return settled(bucketNanos + tier.bucketNanos() - MINUTE_NANOS);
    }

    /** The newest minute that has settled by the clock. */
    public long lastSettledMinute() {
        return minuteOf(now() - MINUTE_NANOS - settle.toNanos());
    }

    /**
     * Whether a chunk filed into a minute now is late for it: the minute settles within {@code margin} of now, so
     * its rollup may be built before the chunk's index entry is visible.
     */
    public boolean late(long minuteNanos, Duration margin) {
        return now() >= settlesAt(minuteNanos) - margin.toNanos();
    }

    /** Whether a minute starts more than {@value #MAX_AHEAD_MINUTES} minutes after now. */
    public boolean aheadOfClock(long minuteNanos) {
        return minuteNanos > now() + MAX_AHEAD_MINUTES * MINUTE_NANOS;
    }

    /** Whether a minute is open: not settled, and not too far {@linkplain #aheadOfClock ahead of the clock}. */
    public boolean open(long minuteNanos) {
        return !settled(minuteNanos) && !aheadOfClock(minuteNanos);
    }

    /**
     * Whether what stood in for a minute's rollup while it was open has expired: {@value #KEEP_AFTER_SETTLED_SECONDS}
     * s after the minute settled, time for the builder to have written the rollup.
     */
    public boolean expired(long minuteNanos) {
        return now() >= settlesAt(minuteNanos) + KEEP_AFTER_SETTLED_SECONDS * SECOND_NANOS;
    }

    /**
     * Whether a chunk acknowledged now counts at once in a partial of this minute: the minute is open, or settled
     * within {@value #RECEIPT_LOOKBACK_MINUTES} minutes of now.
     */
    public boolean countsFromReceipt(long minuteNanos) {
        return !aheadOfClock(minuteNanos)
                && (!settled(minuteNanos) || minuteNanos >= now() - RECEIPT_LOOKBACK_MINUTES * MINUTE_NANOS);
    }

    /**
     * Whether a partial that still holds chunks counted from receipt and not derived yet has expired: the lookback
     * after it would have {@linkplain #expired expired} (their derivation is that late: an archive outage).
     */
    public boolean expiredWhileCounting(long minuteNanos) {
        return now() >= settlesAt(minuteNanos) + KEEP_AFTER_SETTLED_SECONDS * SECOND_NANOS
                + RECEIPT_LOOKBACK_MINUTES * MINUTE_NANOS;
    }
}
