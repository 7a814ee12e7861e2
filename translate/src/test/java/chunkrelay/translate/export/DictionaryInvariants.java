package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/** Checks a request against the dictionary invariants consumers enforce: zero elements, ranges, no orphans. */
final class DictionaryInvariants {
    private DictionaryInvariants() {
    }

    static void assertValid(ExportProfilesServiceRequest request) {
        ProfilesDictionary d = request.getDictionary();
        assertEquals("", d.getStringTable(0), "string 0");
        assertEquals(Mapping.getDefaultInstance(), d.getMappingTable(0), "mapping 0");
        assertEquals(Location.getDefaultInstance(), d.getLocationTable(0), "location 0");
        assertEquals(Function.getDefaultInstance(), d.getFunctionTable(0), "function 0");
        assertEquals(KeyValueAndUnit.getDefaultInstance(), d.getAttributeTable(0), "attribute 0");
        assertEquals(Stack.getDefaultInstance(), d.getStackTable(0), "stack 0");
        assertTrue(d.getLinkTable(0).getTraceId().toByteArray().length == 16
                && d.getLinkTable(0).getTraceId().toByteArray()[0] == 0, "link 0");

        // What the request references, walked here with plain loops as a consumer reads the tables, on purpose
        // not with the production walk (DictionaryReachability) that the pruner under test uses.
        BitSet strings = new BitSet();
        BitSet mappings = new BitSet();
        BitSet locations = new BitSet();
        BitSet functions = new BitSet();
        BitSet links = new BitSet();
        BitSet attributes = new BitSet();
        BitSet stacks = new BitSet();
        int samples = 0;
        for (ResourceProfiles resource : request.getResourceProfilesList()) {
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    assertTrue(profile.getSamplesCount() > 0, "profile without samples");
                    mark(strings, d.getStringTableCount(), profile.getSampleType().getTypeStrindex(), "sample_type");
                    mark(strings, d.getStringTableCount(), profile.getSampleType().getUnitStrindex(), "sample unit");
                    mark(strings, d.getStringTableCount(), profile.getPeriodType().getTypeStrindex(), "period_type");
                    mark(strings, d.getStringTableCount(), profile.getPeriodType().getUnitStrindex(), "period unit");
                    for (int attribute : profile.getAttributeIndicesList()) {
                        mark(attributes, d.getAttributeTableCount(), attribute, "profile attribute");
                    }
                    for (Sample sample : profile.getSamplesList()) {
                        samples++;
                        mark(stacks, d.getStackTableCount(), sample.getStackIndex(), "sample stack");
                        mark(links, d.getLinkTableCount(), sample.getLinkIndex(), "sample link");
                        for (int attribute : sample.getAttributeIndicesList()) {
                            mark(attributes, d.getAttributeTableCount(), attribute, "sample attribute");
                        }
                    }
                }
            }
        }
        for (int s = stacks.nextSetBit(0); s >= 0; s = stacks.nextSetBit(s + 1)) {
            for (int location : d.getStackTable(s).getLocationIndicesList()) {
                mark(locations, d.getLocationTableCount(), location, "stack " + s + " location");
            }
        }
        for (int l = locations.nextSetBit(0); l >= 0; l = locations.nextSetBit(l + 1)) {
            Location location = d.getLocationTable(l);
            mark(mappings, d.getMappingTableCount(), location.getMappingIndex(), "location " + l + " mapping");
            for (Line line : location.getLinesList()) {
                mark(functions, d.getFunctionTableCount(), line.getFunctionIndex(), "location " + l + " function");
            }
            for (int attribute : location.getAttributeIndicesList()) {
                mark(attributes, d.getAttributeTableCount(), attribute, "location " + l + " attribute");
            }
        }
        for (int f = functions.nextSetBit(0); f >= 0; f = functions.nextSetBit(f + 1)) {
            Function function = d.getFunctionTable(f);
            mark(strings, d.getStringTableCount(), function.getNameStrindex(), "function " + f + " name");
            mark(strings, d.getStringTableCount(), function.getSystemNameStrindex(), "function " + f + " system name");
            mark(strings, d.getStringTableCount(), function.getFilenameStrindex(), "function " + f + " filename");
        }
        for (int m = mappings.nextSetBit(0); m >= 0; m = mappings.nextSetBit(m + 1)) {
            Mapping mapping = d.getMappingTable(m);
            mark(strings, d.getStringTableCount(), mapping.getFilenameStrindex(), "mapping " + m + " filename");
            for (int attribute : mapping.getAttributeIndicesList()) {
                mark(attributes, d.getAttributeTableCount(), attribute, "mapping " + m + " attribute");
            }
        }
        for (int a = attributes.nextSetBit(0); a >= 0; a = attributes.nextSetBit(a + 1)) {
            KeyValueAndUnit attribute = d.getAttributeTable(a);
            mark(strings, d.getStringTableCount(), attribute.getKeyStrindex(), "attribute " + a + " key");
            mark(strings, d.getStringTableCount(), attribute.getUnitStrindex(), "attribute " + a + " unit");
            markValueStrings(strings, d.getStringTableCount(), attribute.getValue(), "attribute " + a + " value");
        }
        assertTrue(samples > 0, "request without samples");
        assertNoOrphans(strings, d.getStringTableCount(), "string");
        assertNoOrphans(mappings, d.getMappingTableCount(), "mapping");
        assertNoOrphans(locations, d.getLocationTableCount(), "location");
        assertNoOrphans(functions, d.getFunctionTableCount(), "function");
        assertNoOrphans(links, d.getLinkTableCount(), "link");
        assertNoOrphans(attributes, d.getAttributeTableCount(), "attribute");
        assertNoOrphans(stacks, d.getStackTableCount(), "stack");
    }

    private static void mark(BitSet used, int tableSize, int index, String where) {
        if (index < 0 || index >= tableSize) {
            fail(where + " index " + index + " out of range " + tableSize);
        }
        used.set(index);
    }

    /** String indices inside an attribute value, nested arrays and key-value lists included. */
    private static void markValueStrings(BitSet strings, int tableSize, AnyValue value, String where) {
        if (value.hasStringValueStrindex()) {
            mark(strings, tableSize, value.getStringValueStrindex(), where);
        } else if (value.hasArrayValue()) {
            for (AnyValue element : value.getArrayValue().getValuesList()) {
                markValueStrings(strings, tableSize, element, where);
            }
        } else if (value.hasKvlistValue()) {
            for (KeyValue entry : value.getKvlistValue().getValuesList()) {
                if (entry.getKeyStrindex() != 0) {
                    mark(strings, tableSize, entry.getKeyStrindex(), where + " key");
                }
                markValueStrings(strings, tableSize, entry.getValue(), where);
            }
        }
    }

    /**
     * Everything a sample says once its references are followed, as text: stack (locations with their mapping's
     * file, address, lines with function name, system name and file, attributes), attributes and link. Equal for a
     * sample before and after pruning exactly when the pruner kept everything the sample reaches.
     */
    static String resolved(ProfilesDictionary d, Sample sample) {
        StringBuilder text = new StringBuilder();
        for (int l : d.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            Location location = d.getLocationTable(l);
            Mapping mapping = d.getMappingTable(location.getMappingIndex());
            text.append("location ").append(location.getAddress()).append(" in ")
                    .append(d.getStringTable(mapping.getFilenameStrindex())).append(' ')
                    .append(attributes(d, mapping.getAttributeIndicesList())).append(" lines");
            for (Line line : location.getLinesList()) {
                Function function = d.getFunctionTable(line.getFunctionIndex());
                text.append(' ').append(d.getStringTable(function.getNameStrindex())).append('/')
                        .append(d.getStringTable(function.getSystemNameStrindex())).append('@')
                        .append(d.getStringTable(function.getFilenameStrindex())).append(':').append(line.getLine());
            }
            text.append(' ').append(attributes(d, location.getAttributeIndicesList())).append('\n');
        }
        text.append("sample ").append(attributes(d, sample.getAttributeIndicesList())).append(" link ")
                .append(d.getLinkTable(sample.getLinkIndex()));
        return text.toString();
    }

    private static String attributes(ProfilesDictionary d, List<Integer> indices) {
        List<String> resolved = new ArrayList<>();
        for (int a : indices) {
            KeyValueAndUnit attribute = d.getAttributeTable(a);
            resolved.add(d.getStringTable(attribute.getKeyStrindex()) + "=" + value(d, attribute.getValue()) + " "
                    + d.getStringTable(attribute.getUnitStrindex()));
        }
        return resolved.toString();
    }

    private static String value(ProfilesDictionary d, AnyValue value) {
        return value.hasStringValueStrindex() ? d.getStringTable(value.getStringValueStrindex())
                : value.toString().trim();
    }

    /** Function names of a sample's stack, leaf first. */
    static List<String> frames(ProfilesDictionary d, Sample sample) {
        List<String> names = new ArrayList<>();
        for (int location : d.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            for (Line line : d.getLocationTable(location).getLinesList()) {
                names.add(d.getStringTable(d.getFunctionTable(line.getFunctionIndex()).getNameStrindex()));
            }
        }
        return names;
    }

    private static void assertNoOrphans(BitSet used, int size, String table) {
        for (int i = 1; i < size; i++) {
            if (!used.get(i)) {
                fail(table + " " + i + " is not referenced (orphan)");
            }
        }
    }
}
