package chunkrelay.chunk;

import java.util.List;
import java.util.Map;

/** Relay's chunk measurement units with their aliases, written back under the canonical name. */
final class MeasurementUnits {
    static final List<String> NAMES = List.of("nanosecond", "ns", "hertz", "hz", "byte", "percent", "nanojoule", "nj");

    private static final Map<String, String> CANONICAL = Map.of(
            "nanosecond", "nanosecond", "ns", "nanosecond",
            "hertz", "hertz", "hz", "hertz",
            "byte", "byte",
            "percent", "percent",
            "nanojoule", "nanojoule", "nj", "nanojoule");

    private MeasurementUnits() {
    }

    /** The canonical unit name, or null when Relay does not know the unit. */
    static String canonical(String unit) {
        return CANONICAL.get(unit);
    }
}
