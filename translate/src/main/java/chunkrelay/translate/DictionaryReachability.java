package chunkrelay.translate;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import java.util.BitSet;
import java.util.List;

/**
 * Which entries of each {@link ProfilesDictionary} table a request reaches: the caller feeds in the references of
 * its samples, profiles, scopes and resources, and every entry reached is followed to what it refers to
 * (stacks to locations, locations to mappings, functions and attributes, and all of them to strings).
 * Whatever stays unreached is an orphan. Written once for the invariant check and the splitter's pruning.
 *
 * <p>Element 0 of a table is its zero value: it is marked when referenced but never followed. An index outside
 * its table is handed to the {@link OutOfRange} given, since one caller reports it and the other rejects it.
 */
public final class DictionaryReachability {
    /** Receives a reference outside its table; {@code where} names the field that holds it. */
    @FunctionalInterface
    public interface OutOfRange {
        void report(String where, int index, int tableSize);
    }

    private final ProfilesDictionary dictionary;
    private final OutOfRange outOfRange;
    private final BitSet strings = new BitSet();
    private final BitSet mappings = new BitSet();
    private final BitSet locations = new BitSet();
    private final BitSet functions = new BitSet();
    private final BitSet links = new BitSet();
    private final BitSet attributes = new BitSet();
    private final BitSet stacks = new BitSet();

    public DictionaryReachability(ProfilesDictionary dictionary, OutOfRange outOfRange) {
        this.dictionary = dictionary;
        this.outOfRange = outOfRange;
    }

    // ---- references from outside the dictionary; where names the referring field in the caller's terms

    public void stack(String where, int index) {
        if (reach(stacks, dictionary.getStackTableCount(), index, where, -1, null)) {
            for (int location : dictionary.getStackTable(index).getLocationIndicesList()) {
                location(location, index);
            }
        }
    }

    public void link(String where, int index) {
        reach(links, dictionary.getLinkTableCount(), index, where, -1, null);
    }

    public void attributes(String where, List<Integer> indices) {
        for (int index : indices) {
            attribute(index, where, -1, null);
        }
    }

    public void string(String where, int index) {
        reach(strings, dictionary.getStringTableCount(), index, where, -1, null);
    }

    /** Attributes keyed or valued by string table references (OTLP allows them outside the dictionary too). */
    public void keyValues(String where, List<KeyValue> keyValues) {
        for (KeyValue keyValue : keyValues) {
            keyValue(keyValue, where, -1, "");
        }
    }

    // ---- what was reached, by table

    public BitSet strings() {
        return strings;
    }

    public BitSet mappings() {
        return mappings;
    }

    public BitSet locations() {
        return locations;
    }

    public BitSet functions() {
        return functions;
    }

    public BitSet links() {
        return links;
    }

    public BitSet attributes() {
        return attributes;
    }

    public BitSet stacks() {
        return stacks;
    }

    // ---- references inside the dictionary: (table, entry, field) names the referring field

    private void location(int index, int stack) {
        if (reach(locations, dictionary.getLocationTableCount(), index, "stack_table", stack, "location_indices")) {
            Location location = dictionary.getLocationTable(index);
            if (reach(mappings, dictionary.getMappingTableCount(), location.getMappingIndex(),
                    "location_table", index, "mapping_index")) {
                mapping(location.getMappingIndex());
            }
            for (int attribute : location.getAttributeIndicesList()) {
                attribute(attribute, "location_table", index, "attribute_indices");
            }
            for (Line line : location.getLinesList()) {
                if (reach(functions, dictionary.getFunctionTableCount(), line.getFunctionIndex(),
                        "location_table", index, "lines.function_index")) {
                    function(line.getFunctionIndex());
                }
            }
        }
    }

    private void mapping(int index) {
        Mapping mapping = dictionary.getMappingTable(index);
        string(mapping.getFilenameStrindex(), "mapping_table", index, "filename_strindex");
        for (int attribute : mapping.getAttributeIndicesList()) {
            attribute(attribute, "mapping_table", index, "attribute_indices");
        }
    }

    private void function(int index) {
        Function function = dictionary.getFunctionTable(index);
        string(function.getNameStrindex(), "function_table", index, "name_strindex");
        string(function.getSystemNameStrindex(), "function_table", index, "system_name_strindex");
        string(function.getFilenameStrindex(), "function_table", index, "filename_strindex");
    }

    private void attribute(int index, String table, int entry, String field) {
        if (reach(attributes, dictionary.getAttributeTableCount(), index, table, entry, field)) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            string(attribute.getKeyStrindex(), "attribute_table", index, "key_strindex");
            string(attribute.getUnitStrindex(), "attribute_table", index, "unit_strindex");
            value(attribute.getValue(), "attribute_table", index, "value.");
        }
    }

    /** {@code prefix} is the path to the value; nested values keep it, as they have no name of their own. */
    private void value(AnyValue value, String table, int entry, String prefix) {
        switch (value.getValueCase()) {
            case STRING_VALUE_STRINDEX ->
                    string(value.getStringValueStrindex(), table, entry, prefix + "string_value_strindex");
            case ARRAY_VALUE -> value.getArrayValue().getValuesList().forEach(v -> value(v, table, entry, prefix));
            case KVLIST_VALUE -> value.getKvlistValue().getValuesList().forEach(kv -> keyValue(kv, table, entry, prefix));
            default -> {
            }
        }
    }

    /** A key_strindex of 0 means the key is given as a plain string, so it refers to nothing. */
    private void keyValue(KeyValue keyValue, String table, int entry, String prefix) {
        if (keyValue.getKeyStrindex() != 0) {
            string(keyValue.getKeyStrindex(), table, entry, prefix + "key_strindex");
        }
        value(keyValue.getValue(), table, entry, prefix);
    }

    private void string(int index, String table, int entry, String field) {
        reach(strings, dictionary.getStringTableCount(), index, table, entry, field);
    }

    /**
     * Marks {@code index}; true when it is a non-zero entry reached for the first time, so worth following.
     * The referring field's name is only put together when there is something to report.
     */
    private boolean reach(BitSet reached, int size, int index, String table, int entry, String field) {
        if (index < 0 || index >= size) {
            outOfRange.report(entry < 0 ? table + (field == null ? "" : "." + field)
                    : table + "[" + entry + "]." + field, index, size);
            return false;
        }
        if (reached.get(index)) {
            return false;
        }
        reached.set(index);
        return index != 0;
    }
}
