package chunkrelay.storage;

/**
 * The sizes of time bucket a rollup covers, each with the ticks it counts samples per thread in (what the timeline
 * of a range answered from it can resolve): a minute in seconds, an hour in minutes, a day in quarter hours. Which
 * bucket holds a time is {@link TimeBuckets}'s to say.
 */
public enum RollupTier {
    MINUTE("m", TimeBuckets.MINUTE_NANOS, 60),
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
        return this == DAY ? HOUR : this == HOUR ? MINUTE : null;
    }

    /** The tier made of this one's buckets; null for days. */
    public RollupTier coarser() {
        return this == MINUTE ? HOUR : this == HOUR ? DAY : null;
    }

    String letter() {
        return letter;
    }
}
