package chunkrelay.translate;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
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

import chunkrelay.chunk.spans.SpanRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.BitSet;
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

    /**
     * Invariant 12, for a request translated with known spans: every linked sample's timestamps lie in the span it
     * links to ({@code start <= t < end}) when that span is among {@code spans}.
     */
    public static List<Violation> checkLinkedTimestamps(ExportProfilesServiceRequest request,
                                                        Collection<SpanRecord> spans) {
        Map<String, SpanRecord> byIds = new HashMap<>();
        for (SpanRecord span : spans) {
            byIds.put(span.traceId() + span.spanId(), span);
        }
        List<Link> links = request.getDictionary().getLinkTableList();
        List<Violation> violations = new ArrayList<>();
        for (ResourceProfiles resource : request.getResourceProfilesList()) {
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    for (Sample sample : profile.getSamplesList()) {
                        int index = sample.getLinkIndex();
                        if (index <= 0 || index >= links.size()) {
                            continue;
                        }
                        Link link = links.get(index);
                        String ids = HexFormat.of().formatHex(link.getTraceId().toByteArray())
                                + HexFormat.of().formatHex(link.getSpanId().toByteArray());
                        SpanRecord span = byIds.get(ids);
                        if (span == null) {
                            continue;
                        }
                        for (long timestamp : sample.getTimestampsUnixNanoList()) {
                            if (!span.covers(timestamp)) {
                                violations.add(new Violation(12, "a sample at " + timestamp + " links to span "
                                        + span.spanId() + " [" + span.startNanos() + ", " + span.endNanos() + ")"));
                            }
                        }
                    }
                }
            }
        }
        return violations;
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
        private final ReferencedEntries reached;

        Checker(List<ResourceProfiles> resources, ProfilesDictionary dictionary) {
            this.resources = resources;
            this.dictionary = dictionary;
            this.reached = new ReferencedEntries(dictionary, (where, index, size) ->
                    add(2, where + " = " + index + " is outside a table of " + size));
        }

        List<Violation> run() {
            zeroValuesFirst();

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
            reached.follow();
            reachedAttributeKeys();
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
                reached.stack(at + ".stack_index", sample.getStackIndex());
                reached.link(at + ".link_index", sample.getLinkIndex());
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
            reached.string(where + ".type_strindex", type.getTypeStrindex());
            reached.string(where + ".unit_strindex", type.getUnitStrindex());
        }

        /** Attribute indices in range, reached, and with each key at most once. */
        private void attributeList(String where, List<Integer> indices) {
            reached.attributes(where, indices);
            duplicateKeys(where, indices);
        }

        /** Invariant 4: each key at most once in one attribute list (indices out of range are reported apart). */
        private void duplicateKeys(String where, List<Integer> indices) {
            Set<String> keys = new HashSet<>();
            for (int index : indices) {
                if (index < 0 || index >= dictionary.getAttributeTableCount()) {
                    continue;
                }
                int key = dictionary.getAttributeTable(index).getKeyStrindex();
                if (key >= 0 && key < dictionary.getStringTableCount()
                        && !keys.add(dictionary.getStringTable(key))) {
                    add(4, where + " holds key \"" + dictionary.getStringTable(key) + "\" more than once");
                }
            }
        }

        /**
         * Invariant 4 for the attribute lists of what the samples reach through their stacks (their indices were
         * range-checked while reaching them).
         */
        private void reachedAttributeKeys() {
            BitSet locations = reached.locations();
            for (int l = locations.nextSetBit(1); l >= 0; l = locations.nextSetBit(l + 1)) {
                duplicateKeys("location_table[" + l + "].attribute_indices",
                        dictionary.getLocationTable(l).getAttributeIndicesList());
            }
            BitSet mappings = reached.mappings();
            for (int m = mappings.nextSetBit(1); m >= 0; m = mappings.nextSetBit(m + 1)) {
                duplicateKeys("mapping_table[" + m + "].attribute_indices",
                        dictionary.getMappingTable(m).getAttributeIndicesList());
            }
        }

        /** Invariants 3 (no duplicates, no orphans), 7 (link id lengths) and 9 (functions named). */
        private void tables() {
            unique("string_table", dictionary.getStringTableList(), reached.strings());
            unique("mapping_table", dictionary.getMappingTableList(), reached.mappings());
            unique("location_table", dictionary.getLocationTableList(), reached.locations());
            unique("function_table", dictionary.getFunctionTableList(), reached.functions());
            unique("link_table", dictionary.getLinkTableList(), reached.links());
            unique("attribute_table", dictionary.getAttributeTableList(), reached.attributes());
            unique("stack_table", dictionary.getStackTableList(), reached.stacks());
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

        private void unique(String table, List<?> values, BitSet reached) {
            Map<Object, Integer> first = new HashMap<>();
            for (int i = 0; i < values.size(); i++) {
                Integer earlier = first.putIfAbsent(values.get(i), i);
                if (earlier != null) {
                    add(3, table + "[" + i + "] duplicates " + table + "[" + earlier + "]");
                }
                if (i > 0 && !reached.get(i)) {
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

        private void add(int invariant, String detail) {
            violations.add(new Violation(invariant, detail));
        }

        private static String oneLine(Object message) {
            return message instanceof String s ? "\"" + s + "\"" : message.toString().replace('\n', ' ').trim();
        }
    }
}
