package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
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
    private final ProfilesDictionary d;
    private final BitSet strings = new BitSet();
    private final BitSet mappings = new BitSet();
    private final BitSet locations = new BitSet();
    private final BitSet functions = new BitSet();
    private final BitSet links = new BitSet();
    private final BitSet attributes = new BitSet();
    private final BitSet stacks = new BitSet();

    private DictionaryInvariants(ProfilesDictionary d) {
        this.d = d;
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

        DictionaryInvariants check = new DictionaryInvariants(d);
        int samples = 0;
        for (ResourceProfiles resource : request.getResourceProfilesList()) {
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    assertTrue(profile.getSamplesCount() > 0, "profile without samples");
                    check.string(profile.getSampleType().getTypeStrindex());
                    check.string(profile.getSampleType().getUnitStrindex());
                    check.string(profile.getPeriodType().getTypeStrindex());
                    check.string(profile.getPeriodType().getUnitStrindex());
                    profile.getAttributeIndicesList().forEach(check::attribute);
                    for (Sample sample : profile.getSamplesList()) {
                        samples++;
                        check.stack(sample.getStackIndex());
                        sample.getAttributeIndicesList().forEach(check::attribute);
                        check.mark(check.links, sample.getLinkIndex(), d.getLinkTableCount(), "link");
                    }
                }
            }
        }
        assertTrue(samples > 0, "request without samples");
        check.assertNoOrphans(check.strings, d.getStringTableCount(), "string");
        check.assertNoOrphans(check.mappings, d.getMappingTableCount(), "mapping");
        check.assertNoOrphans(check.locations, d.getLocationTableCount(), "location");
        check.assertNoOrphans(check.functions, d.getFunctionTableCount(), "function");
        check.assertNoOrphans(check.links, d.getLinkTableCount(), "link");
        check.assertNoOrphans(check.attributes, d.getAttributeTableCount(), "attribute");
        check.assertNoOrphans(check.stacks, d.getStackTableCount(), "stack");
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

    private void assertNoOrphans(BitSet used, int size, String table) {
        for (int i = 1; i < size; i++) {
            if (!used.get(i)) {
                fail(table + " " + i + " is not referenced (orphan)");
            }
        }
    }

    private boolean mark(BitSet table, int index, int size, String what) {
        if (index < 0 || index >= size) {
            fail(what + " index " + index + " out of range " + size);
        }
        boolean fresh = !table.get(index);
        table.set(index);
        return fresh && index != 0;
    }

    private void string(int index) {
        mark(strings, index, d.getStringTableCount(), "string");
    }

    private void stack(int index) {
        if (mark(stacks, index, d.getStackTableCount(), "stack")) {
            d.getStackTable(index).getLocationIndicesList().forEach(this::location);
        }
    }

    private void location(int index) {
        if (mark(locations, index, d.getLocationTableCount(), "location")) {
            Location location = d.getLocationTable(index);
            mapping(location.getMappingIndex());
            location.getLinesList().forEach(line -> function(line.getFunctionIndex()));
            location.getAttributeIndicesList().forEach(this::attribute);
        }
    }

    private void mapping(int index) {
        if (mark(mappings, index, d.getMappingTableCount(), "mapping")) {
            string(d.getMappingTable(index).getFilenameStrindex());
            d.getMappingTable(index).getAttributeIndicesList().forEach(this::attribute);
        }
    }

    private void function(int index) {
        if (mark(functions, index, d.getFunctionTableCount(), "function")) {
            Function function = d.getFunctionTable(index);
            string(function.getNameStrindex());
            string(function.getSystemNameStrindex());
            string(function.getFilenameStrindex());
        }
    }

    private void attribute(int index) {
        if (mark(attributes, index, d.getAttributeTableCount(), "attribute")) {
            KeyValueAndUnit attribute = d.getAttributeTable(index);
            string(attribute.getKeyStrindex());
            string(attribute.getUnitStrindex());
            if (attribute.getValue().getValueCase() == AnyValue.ValueCase.STRING_VALUE_STRINDEX) {
                string(attribute.getValue().getStringValueStrindex());
            }
        }
    }
}
