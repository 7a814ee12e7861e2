package chunkrelay.translate.view;

/**
 * Steps of equal length from an origin, for counting samples over time: a timeline's steps, or a rollup's ticks.
 *
 * @param originNanos the first step's start (Unix nanoseconds)
 * @param stepNanos   each step's length
 * @param steps       how many steps
 */
public record TimeGrid(long originNanos, long stepNanos, int steps) {
    public TimeGrid {
        if (stepNanos <= 0 || steps <= 0) {
            throw new IllegalArgumentException("a time grid needs a positive step and step count");
        }
    }

    /**
     * Steps of {@code stepNanos} aligned to multiples of it since the Unix epoch, covering {@code [fromNanos,
     * toNanos)}: aligned steps are what lets whole rollups of a coarser tick fill them exactly.
     */
    public static TimeGrid aligned(long fromNanos, long toNanos, long stepNanos) {
        long origin = Math.floorDiv(fromNanos, stepNanos) * stepNanos;
        long steps = Math.max(1, Math.floorDiv(toNanos - origin + stepNanos - 1, stepNanos));
        if (steps > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many steps");
        }
        return new TimeGrid(origin, stepNanos, (int) steps);
    }

    public long endNanos() {
        return originNanos + stepNanos * steps;
    }

    /** The step of a time, or -1 when the time lies outside the grid. */
    public int stepOf(long nanos) {
        if (nanos < originNanos) {
            return -1;
        }
        long step = (nanos - originNanos) / stepNanos;
        return step < steps ? (int) step : -1;
    }

    /** Whether each step of {@code finer} lies within one step of this grid. */
    public boolean nests(TimeGrid finer) {
        return stepNanos % finer.stepNanos() == 0 && Math.floorMod(finer.originNanos() - originNanos,
                finer.stepNanos()) == 0;
    }
}
