package chunkrelay.storage;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The UTC minutes, hours and days the relay files things by, in one place: their arithmetic on Unix nanoseconds, their
 * names in the bucket ({@code yyyy-mm-dd} for a day's folder, {@code HHmm} for a minute and {@code HH} for an hour
 * within it, nothing for the day itself) and when one has <em>settled</em>: a minute {@code settle} after it ends, an
 * hour or day when its last minute has. Rollups of a bucket are built once it has settled; a chunk filed into a minute
 * about to settle is late ({@link ChunkTimeIndex}). The sizes of the buckets are {@link RollupTier}'s. Thread-safe.
 */
public final class TimeBuckets {
    public static final long SECOND_NANOS = 1_000_000_000L;
    public static final long MINUTE_NANOS = 60 * SECOND_NANOS;
    public static final long HOUR_NANOS = 60 * MINUTE_NANOS;
    public static final long DAY_NANOS = 24 * HOUR_NANOS;
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

    /** The start of the UTC minute holding a time. */
    public static long minuteOf(long nanos) {
        return RollupTier.MINUTE.bucketOf(nanos);
    }

    /** The UTC day holding a time. */
    public static LocalDate dayOf(long nanos) {
        return LocalDate.ofEpochDay(Math.floorDiv(nanos, DAY_NANOS));
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
}
