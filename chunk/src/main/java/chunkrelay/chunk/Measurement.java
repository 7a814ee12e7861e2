package chunkrelay.chunk;

import java.util.Arrays;

/**
 * A chunk measurement: a unit and parallel arrays of timestamps (as the SDK sent them, seconds or
 * milliseconds depending on the SDK) and values.
 */
public final class Measurement {
    private final String unit;
    private final double[] timestamps;
    private final double[] values;

    public Measurement(String unit, double[] timestamps, double[] values) {
        if (timestamps.length != values.length) {
            throw new IllegalArgumentException("timestamps and values differ in length");
        }
        this.unit = unit;
        this.timestamps = timestamps.clone();
        this.values = values.clone();
    }

    public String unit() {
        return unit;
    }

    public int size() {
        return values.length;
    }

    public double timestamp(int i) {
        return timestamps[i];
    }

    public double value(int i) {
        return values[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Measurement m && unit.equals(m.unit)
                && Arrays.equals(timestamps, m.timestamps) && Arrays.equals(values, m.values);
    }

    @Override
    public int hashCode() {
        return unit.hashCode() * 31 + Arrays.hashCode(values);
    }
}
