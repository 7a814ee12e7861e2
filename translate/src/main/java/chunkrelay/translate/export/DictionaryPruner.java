package chunkrelay.translate.export;

import chunkrelay.chunk.primitive.IndexRemap;
import chunkrelay.translate.DictionaryReachability;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The dictionary of one part of a split request: only the entries its samples, profiles, scopes and resources
 * reach, so each part is a valid request without orphans. Use in two phases: mark everything the part
 * references, then {@link #compact()} and rewrite the part's messages through the remap methods.
 *
 * <p>Kept entries stay in their original order and element 0 of every table stays (it is the "unset" value),
 * so a new index is never larger than the old one: the pruned dictionary and every rewritten message
 * serialize to at most their original size, which is what lets the splitter budget parts before building them.
 */
final class DictionaryPruner {
    private final ProfilesDictionary source;
    private final DictionaryReachability reached;
    private IndexRemap stringMap;
    private IndexRemap mappingMap;
    private IndexRemap locationMap;
    private IndexRemap functionMap;
    private IndexRemap linkMap;
    private IndexRemap attributeMap;
    private IndexRemap stackMap;

    DictionaryPruner(ProfilesDictionary source) {
        this.source = source;
        this.reached = new DictionaryReachability(source, DictionaryPruner::rejectOutOfRange);
    }

    /** Index 0 is the zero element, kept in any case: a producer may leave a table empty and still mean unset. */
    private static void rejectOutOfRange(String where, int index, int size) {
        if (index != 0) {
            throw new IllegalArgumentException(where + " " + index + " is outside its table of " + size);
        }
    }

    // ---- mark phase

    void markProfileHeader(Profile profile) {
        markValueType(profile.getSampleType());
        markValueType(profile.getPeriodType());
        reached.attributes("attribute_index", profile.getAttributeIndicesList());
    }

    void markSample(Sample sample) {
        reached.stack("stack_index", sample.getStackIndex());
        reached.attributes("attribute_index", sample.getAttributeIndicesList());
        reached.link("link_index", sample.getLinkIndex());
    }

    void markKeyValues(List<KeyValue> keyValues) {
        reached.keyValues("attributes", keyValues);
    }

    private void markValueType(ValueType valueType) {
        reached.string("type_strindex", valueType.getTypeStrindex());
        reached.string("unit_strindex", valueType.getUnitStrindex());
    }

    // ---- compaction

    /** Fixes the new indices and returns the part's dictionary; call after marking everything. */
    ProfilesDictionary compact() {
        BitSet strings = reached.strings();
        BitSet mappings = reached.mappings();
        BitSet locations = reached.locations();
        BitSet functions = reached.functions();
        BitSet links = reached.links();
        BitSet attributes = reached.attributes();
        BitSet stacks = reached.stacks();
        stringMap = ranks(strings, source.getStringTableCount());
        mappingMap = ranks(mappings, source.getMappingTableCount());
        locationMap = ranks(locations, source.getLocationTableCount());
        functionMap = ranks(functions, source.getFunctionTableCount());
        linkMap = ranks(links, source.getLinkTableCount());
        attributeMap = ranks(attributes, source.getAttributeTableCount());
        stackMap = ranks(stacks, source.getStackTableCount());

        ProfilesDictionary.Builder dictionary = ProfilesDictionary.newBuilder();
        keep(strings, source.getStringTableCount(), i -> dictionary.addStringTable(source.getStringTable(i)));
        keep(mappings, source.getMappingTableCount(), i -> dictionary.addMappingTable(remap(source.getMappingTable(i))));
        keep(locations, source.getLocationTableCount(),
                i -> dictionary.addLocationTable(remap(source.getLocationTable(i))));
        keep(functions, source.getFunctionTableCount(),
                i -> dictionary.addFunctionTable(remap(source.getFunctionTable(i))));
        keep(links, source.getLinkTableCount(), i -> dictionary.addLinkTable(source.getLinkTable(i)));
        keep(attributes, source.getAttributeTableCount(),
                i -> dictionary.addAttributeTable(remap(source.getAttributeTable(i))));
        keep(stacks, source.getStackTableCount(), i -> dictionary.addStackTable(remap(source.getStackTable(i))));
        return dictionary.build();
    }

    /** New index of each kept original index: the count of kept entries before it (element 0 counts as kept). */
    private static IndexRemap ranks(BitSet marked, int size) {
        IndexRemap map = new IndexRemap(size);
        int next = 0;
        for (int i = 0; i < size; i++) {
            if (i == 0 || marked.get(i)) {
                map.set(i, next++);
            }
        }
        return map;
    }

    private interface IndexConsumer {
        void accept(int index);
    }

    private static void keep(BitSet marked, int size, IndexConsumer add) {
        if (size > 0) {
            add.accept(0);
        }
        for (int i = marked.nextSetBit(1); i >= 0; i = marked.nextSetBit(i + 1)) {
            add.accept(i);
        }
    }

    // ---- rewriting

    Profile remapHeader(Profile profile) {
        return profile.toBuilder()
                .clearSamples()
                .setSampleType(remap(profile.getSampleType()))
                .setPeriodType(remap(profile.getPeriodType()))
                .clearAttributeIndices()
                .addAllAttributeIndices(remapAll(profile.getAttributeIndicesList(), attributeMap))
                .build();
    }

    Sample remap(Sample sample) {
        return sample.toBuilder()
                .setStackIndex(index(stackMap, sample.getStackIndex()))
                .clearAttributeIndices()
                .addAllAttributeIndices(remapAll(sample.getAttributeIndicesList(), attributeMap))
                .setLinkIndex(index(linkMap, sample.getLinkIndex()))
                .build();
    }

    List<KeyValue> remapKeyValues(List<KeyValue> keyValues) {
        return keyValues.stream().map(this::remap).toList();
    }

    private KeyValue remap(KeyValue keyValue) {
        KeyValue.Builder builder = keyValue.toBuilder().setKeyStrindex(string(keyValue.getKeyStrindex()));
        if (keyValue.hasValue()) {
            builder.setValue(remap(keyValue.getValue()));
        }
        return builder.build();
    }

    private AnyValue remap(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE_STRINDEX -> value.toBuilder()
                    .setStringValueStrindex(string(value.getStringValueStrindex())).build();
            case ARRAY_VALUE -> AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
                    .addAllValues(value.getArrayValue().getValuesList().stream().map(this::remap).toList())).build();
            case KVLIST_VALUE -> AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
                    .addAllValues(remapKeyValues(value.getKvlistValue().getValuesList()))).build();
            default -> value;
        };
    }

    private ValueType remap(ValueType valueType) {
        return valueType.toBuilder()
                .setTypeStrindex(string(valueType.getTypeStrindex()))
                .setUnitStrindex(string(valueType.getUnitStrindex()))
                .build();
    }

    private Mapping remap(Mapping mapping) {
        return mapping.toBuilder()
                .setFilenameStrindex(string(mapping.getFilenameStrindex()))
                .clearAttributeIndices()
                .addAllAttributeIndices(remapAll(mapping.getAttributeIndicesList(), attributeMap))
                .build();
    }

    private Location remap(Location location) {
        Location.Builder builder = location.toBuilder()
                .setMappingIndex(index(mappingMap, location.getMappingIndex()))
                .clearLines()
                .clearAttributeIndices()
                .addAllAttributeIndices(remapAll(location.getAttributeIndicesList(), attributeMap));
        for (Line line : location.getLinesList()) {
            builder.addLines(line.toBuilder().setFunctionIndex(index(functionMap, line.getFunctionIndex())));
        }
        return builder.build();
    }

    private Function remap(Function function) {
        return function.toBuilder()
                .setNameStrindex(string(function.getNameStrindex()))
                .setSystemNameStrindex(string(function.getSystemNameStrindex()))
                .setFilenameStrindex(string(function.getFilenameStrindex()))
                .build();
    }

    private KeyValueAndUnit remap(KeyValueAndUnit attribute) {
        KeyValueAndUnit.Builder builder = attribute.toBuilder()
                .setKeyStrindex(string(attribute.getKeyStrindex()))
                .setUnitStrindex(string(attribute.getUnitStrindex()));
        if (attribute.hasValue()) {
            builder.setValue(remap(attribute.getValue()));
        }
        return builder.build();
    }

    private Stack remap(Stack stack) {
        return Stack.newBuilder()
                .addAllLocationIndices(remapAll(stack.getLocationIndicesList(), locationMap))
                .build();
    }

    private int string(int index) {
        return index(stringMap, index);
    }

    /** Index 0 stays 0 even when a producer left the table empty. */
    private static int index(IndexRemap map, int index) {
        return index == 0 ? 0 : map.get(index);
    }

    private static List<Integer> remapAll(List<Integer> indices, IndexRemap map) {
        IntUnaryOperator remap = index -> index(map, index);
        return indices.stream().map(remap::applyAsInt).toList();
    }
}
