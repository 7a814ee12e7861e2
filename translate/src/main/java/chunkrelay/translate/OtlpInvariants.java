package chunkrelay.translate;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks OTLP profiles against the eleven invariants a correct producer keeps (see the project's
 * {@code otlp-profiles.md}): what the OpenTelemetry Collector, Pyroscope and Elastic check or rely on.
 * Used by the translation's own tests and by other modules' tests on what they send or store.
 */
public final class OtlpInvariants {
    private static final Link ZERO_LINK = ProfilesDictionaryBuilder.ZERO_LINK;

    private OtlpInvariants() {
    }

    /** One broken invariant (numbered as in {@code otlp-profiles.md}) and where. */
    public record Violation(int invariant, String detail) {
        @Override
        public String toString() {
            return "invariant " + invariant + ": " + detail;
        }
    }

    /** Decodes an encoded {@link ExportProfilesServiceRequest} and checks it. */
    public static List<Violation> check(byte[] encodedRequest) {
        try {
            return check(ExportProfilesServiceRequest.parseFrom(encodedRequest));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("not an ExportProfilesServiceRequest: " + e.getMessage(), e);
        }
    }

    /** The violations of {@code request}; empty when it keeps every invariant. */
    public static List<Violation> check(ExportProfilesServiceRequest request) {
        return new Checker(request.getResourceProfilesList(), request.getDictionary()).run();
    }

    public static List<Violation> check(ProfilesData data) {
        return new Checker(data.getResourceProfilesList(), data.getDictionary()).run();
    }

    /** Throws an {@link AssertionError} listing every violation, if there is any. */
    public static void assertValid(ExportProfilesServiceRequest request) {
        fail(check(request));
    }

    public static void assertValid(byte[] encodedRequest) {
        fail(check(encodedRequest));
    }

    private static void fail(List<Violation> violations) {
        if (!violations.isEmpty()) {
            StringBuilder message = new StringBuilder("OTLP profiles break ")
                    .append(violations.size()).append(" invariant check(s):");
            for (Violation violation : violations) {
                message.append("\n  ").append(violation);
            }
            throw new AssertionError(message.toString());
        }
    }

    private static final class Checker {
        private final List<ResourceProfiles> resources;
        private final ProfilesDictionary dictionary;
        private final List<Violation> violations = new ArrayList<>();
        private boolean[] reachedStrings;
        private boolean[] reachedFunctions;
        private boolean[] reachedLocations;
        private boolean[] reachedStacks;
        private boolean[] reachedAttributes;
        private boolean[] reachedLinks;
        private boolean[] reachedMappings;

        Checker(List<ResourceProfiles> resources, ProfilesDictionary dictionary) {
            this.resources = resources;
            this.dictionary = dictionary;
        }

        List<Violation> run() {
            zeroValuesFirst();
            reachedStrings = new boolean[dictionary.getStringTableCount()];
            reachedFunctions = new boolean[dictionary.getFunctionTableCount()];
            reachedLocations = new boolean[dictionary.getLocationTableCount()];
            reachedStacks = new boolean[dictionary.getStackTableCount()];
            reachedAttributes = new boolean[dictionary.getAttributeTableCount()];
            reachedLinks = new boolean[dictionary.getLinkTableCount()];
            reachedMappings = new boolean[dictionary.getMappingTableCount()];

            long samples = 0;
            for (int r = 0; r < resources.size(); r++) {
                ResourceProfiles resource = resources.get(r);
                plainAttributes("resource_profiles[" + r + "].resource", resource.getResource().getAttributesList());
                for (int s = 0; s < resource.getScopeProfilesCount(); s++) {
                    ScopeProfiles scope = resource.getScopeProfiles(s);
                    String where = "resource_profiles[" + r + "].scope_profiles[" + s + "]";
                    plainAttributes(where + ".scope", scope.getScope().getAttributesList());
                    for (int p = 0; p < scope.getProfilesCount(); p++) {
                        Profile profile = scope.getProfiles(p);
                        profile(where + ".profiles[" + p + "]", profile);
                        samples += profile.getSamplesCount();
                    }
                }
            }
            if (samples == 0) {
                add(11, "the request carries no sample");
            }
            reachFromStacks();
            tables();
            return violations;
        }

        /** Invariant 1: every table present with its zero value first. */
        private void zeroValuesFirst() {
            zeroFirst("string_table", dictionary.getStringTableList(), "");
            zeroFirst("mapping_table", dictionary.getMappingTableList(), Mapping.getDefaultInstance());
            zeroFirst("location_table", dictionary.getLocationTableList(), Location.getDefaultInstance());
            zeroFirst("function_table", dictionary.getFunctionTableList(), Function.getDefaultInstance());
            zeroFirst("link_table", dictionary.getLinkTableList(), ZERO_LINK);
            zeroFirst("attribute_table", dictionary.getAttributeTableList(), KeyValueAndUnit.getDefaultInstance());
            zeroFirst("stack_table", dictionary.getStackTableList(), Stack.getDefaultInstance());
        }

        private void zeroFirst(String table, List<?> values, Object zero) {
            if (values.isEmpty()) {
                add(1, table + " is missing (it must hold at least its zero value)");
            } else if (!values.get(0).equals(zero)) {
                add(1, table + "[0] is not the zero value: " + oneLine(values.get(0)));
            }
        }

        private void profile(String where, Profile profile) {
            valueType(where + ".sample_type", profile.hasSampleType(), profile.getSampleType());
            valueType(where + ".period_type", profile.hasPeriodType(), profile.getPeriodType());
            if (profile.getPeriod() <= 0) {
                add(6, where + ".period is " + profile.getPeriod() + ", must be > 0");
            }
            ByteString id = profile.getProfileId();
            if (!id.isEmpty() && (id.size() != 16 || id.equals(ByteString.copyFrom(new byte[16])))) {
                add(7, where + ".profile_id must be empty or 16 bytes not all zero, is " + id.size() + " bytes");
            }
            if (profile.getOriginalPayloadFormat().isEmpty() != profile.getOriginalPayload().isEmpty()) {
                add(8, where + ": original_payload_format and original_payload must be set together");
            }
            attributeList(where + ".attribute_indices", profile.getAttributeIndicesList());

            long start = profile.getTimeUnixNano();
            long end = start + profile.getDurationNano();
            Set<String> identities = new HashSet<>();
            for (int i = 0; i < profile.getSamplesCount(); i++) {
                Sample sample = profile.getSamples(i);
                String at = where + ".samples[" + i + "]";
                if (inRange(2, at + ".stack_index", sample.getStackIndex(), reachedStacks)) {
                    reachedStacks[sample.getStackIndex()] = true;
                }
                if (inRange(2, at + ".link_index", sample.getLinkIndex(), reachedLinks)) {
                    reachedLinks[sample.getLinkIndex()] = true;
                }
                attributeList(at + ".attribute_indices", sample.getAttributeIndicesList());
                int timestamps = sample.getTimestampsUnixNanoCount();
                int values = sample.getValuesCount();
                if (timestamps == 0 && values == 0) {
                    add(4, at + " has neither timestamps nor values");
                } else if (timestamps > 0 && values > 0 && timestamps != values) {
                    add(4, at + " has " + timestamps + " timestamps but " + values + " values");
                }
                for (int t = 0; t < timestamps; t++) {
                    long timestamp = sample.getTimestampsUnixNano(t);
                    if (Long.compareUnsigned(timestamp, start) < 0 || Long.compareUnsigned(timestamp, end) >= 0) {
                        add(5, at + ".timestamps_unix_nano[" + t + "] = " + Long.toUnsignedString(timestamp)
                                + " lies outside [" + Long.toUnsignedString(start) + ", "
                                + Long.toUnsignedString(end) + ")");
                    }
                }
                String identity = sample.getStackIndex() + "|" + new TreeSet<>(sample.getAttributeIndicesList())
                        + "|" + sample.getLinkIndex();
                if (!identities.add(identity)) {
                    add(4, at + " repeats the (stack, attributes, link) of an earlier sample; merge them");
                }
            }
        }

        private void valueType(String where, boolean present, ValueType type) {
            if (!present || type.getTypeStrindex() == 0) {
                add(6, where + " is not set");
                return;
            }
            reachString(where + ".type_strindex", type.getTypeStrindex());
            reachString(where + ".unit_strindex", type.getUnitStrindex());
        }

        /** Attribute indices in range, reached, and with each key at most once. */
        private void attributeList(String where, List<Integer> indices) {
            Set<String> keys = new HashSet<>();
            for (int index : indices) {
                if (!inRange(2, where, index, reachedAttributes)) {
                    continue;
                }
                reachedAttributes[index] = true;
                int key = dictionary.getAttributeTable(index).getKeyStrindex();
                if (key >= 0 && key < dictionary.getStringTableCount()
                        && !keys.add(dictionary.getStringTable(key))) {
                    add(4, where + " holds key \"" + dictionary.getStringTable(key) + "\" more than once");
                }
            }
        }

        /** Marks what the reached stacks lead to, so that whatever stays unmarked is an orphan. */
        private void reachFromStacks() {
            for (int s = 1; s < reachedStacks.length; s++) {
                if (!reachedStacks[s]) {
                    continue;
                }
                for (int location : dictionary.getStackTable(s).getLocationIndicesList()) {
                    if (inRange(2, "stack_table[" + s + "].location_indices", location, reachedLocations)) {
                        reachedLocations[location] = true;
                    }
                }
            }
            for (int l = 1; l < reachedLocations.length; l++) {
                if (!reachedLocations[l]) {
                    continue;
                }
                Location location = dictionary.getLocationTable(l);
                String where = "location_table[" + l + "]";
                if (inRange(2, where + ".mapping_index", location.getMappingIndex(), reachedMappings)) {
                    reachedMappings[location.getMappingIndex()] = true;
                }
                attributeList(where + ".attribute_indices", location.getAttributeIndicesList());
                for (Line line : location.getLinesList()) {
                    if (inRange(2, where + ".lines.function_index", line.getFunctionIndex(), reachedFunctions)) {
                        reachedFunctions[line.getFunctionIndex()] = true;
                    }
                }
            }
            for (int m = 1; m < reachedMappings.length; m++) {
                if (reachedMappings[m]) {
                    Mapping mapping = dictionary.getMappingTable(m);
                    reachString("mapping_table[" + m + "].filename_strindex", mapping.getFilenameStrindex());
                    attributeList("mapping_table[" + m + "].attribute_indices", mapping.getAttributeIndicesList());
                }
            }
            for (int f = 1; f < reachedFunctions.length; f++) {
                if (reachedFunctions[f]) {
                    Function function = dictionary.getFunctionTable(f);
                    String where = "function_table[" + f + "]";
                    reachString(where + ".name_strindex", function.getNameStrindex());
                    reachString(where + ".system_name_strindex", function.getSystemNameStrindex());
                    reachString(where + ".filename_strindex", function.getFilenameStrindex());
                }
            }
            for (int a = 1; a < reachedAttributes.length; a++) {
                if (reachedAttributes[a]) {
                    KeyValueAndUnit attribute = dictionary.getAttributeTable(a);
                    String where = "attribute_table[" + a + "]";
                    reachString(where + ".key_strindex", attribute.getKeyStrindex());
                    reachString(where + ".unit_strindex", attribute.getUnitStrindex());
                    reachValueStrings(where + ".value", attribute.getValue());
                }
            }
        }

        private void reachValueStrings(String where, AnyValue value) {
            switch (value.getValueCase()) {
                case STRING_VALUE_STRINDEX -> reachString(where + ".string_value_strindex", value.getStringValueStrindex());
                case ARRAY_VALUE -> value.getArrayValue().getValuesList().forEach(v -> reachValueStrings(where, v));
                case KVLIST_VALUE -> {
                    for (KeyValue pair : value.getKvlistValue().getValuesList()) {
                        if (pair.getKeyStrindex() != 0) {
                            reachString(where + ".key_strindex", pair.getKeyStrindex());
                        }
                        reachValueStrings(where, pair.getValue());
                    }
                }
                default -> {
                }
            }
        }

        private void reachString(String where, int index) {
            if (inRange(2, where, index, reachedStrings)) {
                reachedStrings[index] = true;
            }
        }

        /** Invariants 3 (no duplicates, no orphans), 7 (link id lengths) and 9 (functions named). */
        private void tables() {
            unique("string_table", dictionary.getStringTableList(), reachedStrings);
            unique("mapping_table", dictionary.getMappingTableList(), reachedMappings);
            unique("location_table", dictionary.getLocationTableList(), reachedLocations);
            unique("function_table", dictionary.getFunctionTableList(), reachedFunctions);
            unique("link_table", dictionary.getLinkTableList(), reachedLinks);
            unique("attribute_table", dictionary.getAttributeTableList(), reachedAttributes);
            unique("stack_table", dictionary.getStackTableList(), reachedStacks);
            for (int l = 0; l < dictionary.getLinkTableCount(); l++) {
                Link link = dictionary.getLinkTable(l);
                if (link.getTraceId().size() != 16 || link.getSpanId().size() != 8) {
                    add(7, "link_table[" + l + "] has ids of " + link.getTraceId().size() + " and "
                            + link.getSpanId().size() + " bytes, must be 16 and 8");
                }
            }
            for (int f = 1; f < dictionary.getFunctionTableCount(); f++) {
                Function function = dictionary.getFunctionTable(f);
                if (isEmptyString(function.getNameStrindex()) && isEmptyString(function.getSystemNameStrindex())
                        && isEmptyString(function.getFilenameStrindex())) {
                    add(9, "function_table[" + f + "] has no name, system name or file name");
                }
            }
        }

        private boolean isEmptyString(int index) {
            return index <= 0 || index >= dictionary.getStringTableCount() || dictionary.getStringTable(index).isEmpty();
        }

        private void unique(String table, List<?> values, boolean[] reached) {
            Map<Object, Integer> first = new HashMap<>();
            for (int i = 0; i < values.size(); i++) {
                Integer earlier = first.putIfAbsent(values.get(i), i);
                if (earlier != null) {
                    add(3, table + "[" + i + "] duplicates " + table + "[" + earlier + "]");
                }
                if (i > 0 && !reached[i]) {
                    add(3, table + "[" + i + "] is an orphan: nothing a sample reaches refers to it");
                }
            }
        }

        /** Invariant 10: plain key and string_value, no references into the string table. */
        private void plainAttributes(String where, List<KeyValue> attributes) {
            for (KeyValue attribute : attributes) {
                if (attribute.getKey().isEmpty() || attribute.getKeyStrindex() != 0) {
                    add(10, where + " has an attribute keyed by key_strindex "
                            + attribute.getKeyStrindex() + " instead of a plain key");
                }
                if (usesStrindex(attribute.getValue())) {
                    add(10, where + " attribute \"" + attribute.getKey()
                            + "\" uses string_value_strindex instead of string_value");
                }
            }
        }

        private static boolean usesStrindex(AnyValue value) {
            return switch (value.getValueCase()) {
                case STRING_VALUE_STRINDEX -> true;
                case ARRAY_VALUE -> value.getArrayValue().getValuesList().stream().anyMatch(Checker::usesStrindex);
                case KVLIST_VALUE -> value.getKvlistValue().getValuesList().stream()
                        .anyMatch(pair -> pair.getKeyStrindex() != 0 || usesStrindex(pair.getValue()));
                default -> false;
            };
        }

        private boolean inRange(int invariant, String where, int index, boolean[] table) {
            if (index < 0 || index >= table.length) {
                add(invariant, where + " = " + index + " is outside a table of " + table.length);
                return false;
            }
            return true;
        }

        private void add(int invariant, String detail) {
            violations.add(new Violation(invariant, detail));
        }

        private static String oneLine(Object message) {
            return message instanceof String s ? "\"" + s + "\"" : message.toString().replace('\n', ' ').trim();
        }
    }
}
