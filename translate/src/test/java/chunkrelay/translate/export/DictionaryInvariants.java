package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import chunkrelay.translate.DictionaryReachability;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
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

        DictionaryReachability reached = new DictionaryReachability(d,
                (where, index, size) -> fail(where + " index " + index + " out of range " + size));
        int samples = 0;
        for (ResourceProfiles resource : request.getResourceProfilesList()) {
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    assertTrue(profile.getSamplesCount() > 0, "profile without samples");
                    reached.string("sample_type", profile.getSampleType().getTypeStrindex());
                    reached.string("sample_type unit", profile.getSampleType().getUnitStrindex());
                    reached.string("period_type", profile.getPeriodType().getTypeStrindex());
                    reached.string("period_type unit", profile.getPeriodType().getUnitStrindex());
                    reached.attributes("profile attribute", profile.getAttributeIndicesList());
                    for (Sample sample : profile.getSamplesList()) {
                        samples++;
                        reached.stack("stack", sample.getStackIndex());
                        reached.attributes("sample attribute", sample.getAttributeIndicesList());
                        reached.link("link", sample.getLinkIndex());
                    }
                }
            }
        }
        assertTrue(samples > 0, "request without samples");
        assertNoOrphans(reached.strings(), d.getStringTableCount(), "string");
        assertNoOrphans(reached.mappings(), d.getMappingTableCount(), "mapping");
        assertNoOrphans(reached.locations(), d.getLocationTableCount(), "location");
        assertNoOrphans(reached.functions(), d.getFunctionTableCount(), "function");
        assertNoOrphans(reached.links(), d.getLinkTableCount(), "link");
        assertNoOrphans(reached.attributes(), d.getAttributeTableCount(), "attribute");
        assertNoOrphans(reached.stacks(), d.getStackTableCount(), "stack");
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
