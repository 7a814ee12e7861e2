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
 * {@link OtlpInvariants}' own walk of a dictionary: which entries of each table a request references. It is written
 * apart from the production walk ({@link DictionaryReachability}) on purpose, as a consumer reads the tables, one
 * table after the other with plain loops: the oracle must not share the code it judges, which the pruner uses.
 *
 * <p>The caller marks what its samples, profiles and their types reference, then {@link #follow()} marks what those
 * entries refer to (stacks to locations, locations to mappings, functions and attributes, all of them to strings).
 * Element 0 of a table is marked when referenced but refers to nothing. An index outside its table goes to the
 * {@link DictionaryReachability.OutOfRange} given, named by the field that holds it.
 */
final class ReferencedEntries {
    private final ProfilesDictionary dictionary;
    private final DictionaryReachability.OutOfRange outOfRange;
    private final BitSet strings = new BitSet();
    private final BitSet mappings = new BitSet();
    private final BitSet locations = new BitSet();
    private final BitSet functions = new BitSet();
    private final BitSet links = new BitSet();
    private final BitSet attributes = new BitSet();
    private final BitSet stacks = new BitSet();

    ReferencedEntries(ProfilesDictionary dictionary, DictionaryReachability.OutOfRange outOfRange) {
        this.dictionary = dictionary;
        this.outOfRange = outOfRange;
    }

    void stack(String where, int index) {
        mark(stacks, dictionary.getStackTableCount(), index, where);
    }

    void link(String where, int index) {
        mark(links, dictionary.getLinkTableCount(), index, where);
    }

    void attributes(String where, List<Integer> indices) {
        for (int index : indices) {
            mark(attributes, dictionary.getAttributeTableCount(), index, where);
        }
    }

    void string(String where, int index) {
        mark(strings, dictionary.getStringTableCount(), index, where);
    }

    /** Marks what the entries marked so far refer to, table by table, each table after all that refer to it. */
    void follow() {
        for (int s = stacks.nextSetBit(1); s >= 0; s = stacks.nextSetBit(s + 1)) {
            for (int location : dictionary.getStackTable(s).getLocationIndicesList()) {
                mark(locations, dictionary.getLocationTableCount(), location,
                        "stack_table[" + s + "].location_indices");
            }
        }
        for (int l = locations.nextSetBit(1); l >= 0; l = locations.nextSetBit(l + 1)) {
            Location location = dictionary.getLocationTable(l);
            mark(mappings, dictionary.getMappingTableCount(), location.getMappingIndex(),
                    "location_table[" + l + "].mapping_index");
            attributes("location_table[" + l + "].attribute_indices", location.getAttributeIndicesList());
            for (Line line : location.getLinesList()) {
                mark(functions, dictionary.getFunctionTableCount(), line.getFunctionIndex(),
                        "location_table[" + l + "].lines.function_index");
            }
        }
        for (int m = mappings.nextSetBit(1); m >= 0; m = mappings.nextSetBit(m + 1)) {
            Mapping mapping = dictionary.getMappingTable(m);
            string("mapping_table[" + m + "].filename_strindex", mapping.getFilenameStrindex());
            attributes("mapping_table[" + m + "].attribute_indices", mapping.getAttributeIndicesList());
        }
        for (int f = functions.nextSetBit(1); f >= 0; f = functions.nextSetBit(f + 1)) {
            Function function = dictionary.getFunctionTable(f);
            string("function_table[" + f + "].name_strindex", function.getNameStrindex());
            string("function_table[" + f + "].system_name_strindex", function.getSystemNameStrindex());
            string("function_table[" + f + "].filename_strindex", function.getFilenameStrindex());
        }
        for (int a = attributes.nextSetBit(1); a >= 0; a = attributes.nextSetBit(a + 1)) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(a);
            string("attribute_table[" + a + "].key_strindex", attribute.getKeyStrindex());
            string("attribute_table[" + a + "].unit_strindex", attribute.getUnitStrindex());
            valueStrings("attribute_table[" + a + "].value.", attribute.getValue());
        }
    }

    /** String references inside a value, nested arrays and key-value lists included; key 0 is a plain key. */
    private void valueStrings(String prefix, AnyValue value) {
        if (value.hasStringValueStrindex()) {
            string(prefix + "string_value_strindex", value.getStringValueStrindex());
        } else if (value.hasArrayValue()) {
            for (AnyValue element : value.getArrayValue().getValuesList()) {
                valueStrings(prefix, element);
            }
        } else if (value.hasKvlistValue()) {
            for (KeyValue entry : value.getKvlistValue().getValuesList()) {
                if (entry.getKeyStrindex() != 0) {
                    string(prefix + "key_strindex", entry.getKeyStrindex());
                }
                valueStrings(prefix, entry.getValue());
            }
        }
    }

    private void mark(BitSet marked, int tableSize, int index, String where) {
        if (index < 0 || index >= tableSize) {
            outOfRange.report(where, index, tableSize);
        } else {
            marked.set(index);
        }
    }

    BitSet strings() {
        return strings;
    }

    BitSet mappings() {
        return mappings;
    }

    BitSet locations() {
        return locations;
    }

    BitSet functions() {
        return functions;
    }

    BitSet links() {
        return links;
    }

    BitSet attributes() {
        return attributes;
    }

    BitSet stacks() {
        return stacks;
    }
}
