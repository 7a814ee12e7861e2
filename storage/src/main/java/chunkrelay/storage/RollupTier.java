package chunkrelay.storage;

/**
 * The sizes of time bucket a rollup covers, each with the ticks it counts samples per thread in (what the timeline
 * of a range answered from it can resolve): a minute in seconds, ten minutes in ten seconds, an hour in minutes, a
 * day in quarter hours. Each tier's buckets are made of the next finer tier's, so that any range of whole minutes is
 * covered by at most 9 minutes, 5 ten-minute buckets and 23 hours at each end and its whole days. Which bucket holds
 * a time is {@link TimeBuckets}'s to say.
 */
public enum RollupTier {
    MINUTE("m", TimeBuckets.MINUTE_NANOS, 60),
    TEN_MINUTES("t", 10 * TimeBuckets.MINUTE_NANOS, 60),
    HOUR("h", TimeBuckets.HOUR_NANOS, 60),
    DAY("d", TimeBuckets.DAY_NANOS, 96);

    private final String letter;
    private final long bucketNanos;
    private final int ticks;

    RollupTier(String letter, long bucketNanos, int ticks) {
        this.letter = letter;
        this.bucketNanos = bucketNanos;
        this.ticks = ticks;
    }

    public long bucketNanos() {
        return bucketNanos;
    }

    public int ticks() {
        return ticks;
    }

    public long tickNanos() {
        return bucketNanos / ticks;
    }

    /** The tier whose buckets this one's are made of; null for minutes, which are made of chunks. */
    public RollupTier finer() {
        return this == MINUTE ? null : values()[ordinal() - 1];
    }

    /** The tier made of this one's buckets; null for days. */
    public RollupTier coarser() {
        return this == DAY ? null : values()[ordinal() + 1];
    }

    String letter() {
        return letter;
    }
}
