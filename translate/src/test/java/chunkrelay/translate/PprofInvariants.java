package chunkrelay.translate;

import com.google.perftools.profiles.ProfileProto;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rules {@code go tool pprof} enforces when it reads a profile (google/pprof {@code CheckValid} and its string
 * table handling, see the profile-views research note, section 5), checked in process: a violation here is a profile
 * pprof would refuse, often with an unhelpful message.
 */
final class PprofInvariants {
    private PprofInvariants() {
    }

    static List<String> check(ProfileProto.Profile profile) {
        List<String> violations = new ArrayList<>();
        int strings = profile.getStringTableCount();
        if (strings == 0 || !profile.getStringTable(0).isEmpty()) {
            violations.add("string_table[0] must be the empty string");
        }
        if (profile.getSampleCount() > 0 && profile.getSampleTypeCount() == 0) {
            violations.add("samples without sample_type");
        }
        for (ProfileProto.ValueType type : profile.getSampleTypeList()) {
            checkString(violations, strings, type.getType(), "sample_type.type");
            checkString(violations, strings, type.getUnit(), "sample_type.unit");
        }
        Set<Long> mappings = ids(violations, "mapping", profile.getMappingList().stream()
                .map(ProfileProto.Mapping::getId).toList());
        Set<Long> functions = ids(violations, "function", profile.getFunctionList().stream()
                .map(ProfileProto.Function::getId).toList());
        Set<Long> locations = ids(violations, "location", profile.getLocationList().stream()
                .map(ProfileProto.Location::getId).toList());
        for (ProfileProto.Function function : profile.getFunctionList()) {
            checkString(violations, strings, function.getName(), "function.name");
            checkString(violations, strings, function.getSystemName(), "function.system_name");
            checkString(violations, strings, function.getFilename(), "function.filename");
        }
        for (ProfileProto.Mapping mapping : profile.getMappingList()) {
            checkString(violations, strings, mapping.getFilename(), "mapping.filename");
        }
        for (ProfileProto.Location location : profile.getLocationList()) {
            if (location.getMappingId() != 0 && !mappings.contains(location.getMappingId())) {
                violations.add("location " + location.getId() + " names mapping " + location.getMappingId());
            }
            for (ProfileProto.Line line : location.getLineList()) {
                if (!functions.contains(line.getFunctionId())) {
                    violations.add("location id: " + location.getId() + " has a line with nil function");
                }
            }
        }
        for (ProfileProto.Sample sample : profile.getSampleList()) {
            if (sample.getValueCount() != profile.getSampleTypeCount()) {
                violations.add("mismatch: sample has " + sample.getValueCount() + " values vs. "
                        + profile.getSampleTypeCount() + " types");
            }
            for (long id : sample.getLocationIdList()) {
                if (!locations.contains(id)) {
                    violations.add("sample has nil location " + id);
                }
            }
            for (ProfileProto.Label label : sample.getLabelList()) {
                checkString(violations, strings, label.getKey(), "label.key");
                checkString(violations, strings, label.getStr(), "label.str");
            }
        }
        checkString(violations, strings, profile.getDefaultSampleType(), "default_sample_type");
        for (long comment : profile.getCommentList()) {
            checkString(violations, strings, comment, "comment");
        }
        return violations;
    }

    private static Set<Long> ids(List<String> violations, String table, List<Long> ids) {
        Set<Long> seen = new HashSet<>();
        for (long id : ids) {
            if (id == 0) {
                violations.add("found " + table + " with reserved id=0");
            } else if (!seen.add(id)) {
                violations.add("multiple " + table + "s with same id: " + id);
            }
        }
        return seen;
    }

    private static void checkString(List<String> violations, int strings, long index, String where) {
        if (index < 0 || index >= strings) {
            violations.add(where + " = " + index + " is outside a string table of " + strings);
        }
    }
}
