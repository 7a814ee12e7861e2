package chunkrelay.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An indexed set: each distinct value is stored once and known by its position. Position 0 holds
 * the table's zero value, so that index 0 can mean "unset" wherever the table is referenced.
 *
 * @param <T> a value type with value equality (strings, generated protobuf messages)
 */
final class DictionaryTable<T> {
    private final Map<T, Integer> indices = new HashMap<>();
    private final List<T> values = new ArrayList<>();

    DictionaryTable(T zero) {
        index(zero);
    }

    /** The index of {@code value}, appending it when it is new. */
    int index(T value) {
        Integer known = indices.putIfAbsent(value, values.size());
        if (known != null) {
            return known;
        }
        values.add(value);
        return values.size() - 1;
    }

    int size() {
        return values.size();
    }

    /** The values in index order, zero value first. */
    List<T> values() {
        return values;
    }
}
