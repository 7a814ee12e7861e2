package chunkrelay.bench;

import java.util.Arrays;

/** The median the bench's rows report: the middle of the sorted values (the upper one of an even count). */
final class Medians {
    private Medians() {
    }

    /** The median of {@code values}, which are left as they are; NaN when there are none. */
    static double of(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }
}
