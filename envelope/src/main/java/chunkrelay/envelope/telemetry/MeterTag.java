package chunkrelay.envelope.telemetry;

import java.util.List;

/**
 * One tag of a meter: its key and, where the code counts under a fixed set, every value it takes; an empty set
 * when the value comes from the input or the configuration (an HTTP status, a platform, a project), bounded there.
 */
public record MeterTag(String key, List<String> values) {
    public static MeterTag tag(String key, String... values) {
        return new MeterTag(key, List.of(values));
    }

    /** Whether the values are a fixed set declared here. */
    public boolean fixed() {
        return !values.isEmpty();
    }
}
