package chunkrelay.envelope.testing;

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
import io.opentelemetry.proto.profiles.v1development.ValueType;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * An OTLP profiles request read through its dictionary into values that no longer depend on table indices, so two
 * encodings of the same profiles compare equal: the relay's, and the Collector's after its pdata re-encoded them
 * (it moves resource and scope attribute keys and string values into the string table, {@code key_strindex} and
 * {@code string_value_strindex}). Every index is resolved by the test's own decoding; an index outside its table
 * fails.
 */
public final class ResolvedProfiles {

    /** One profile with what its resource and scope say. */
    public record ResolvedProfile(String resourceSchemaUrl, List<Attribute> resource, String scopeName,
                                  String scopeVersion, List<Attribute> scope, String sampleType, String periodType,
                                  long period, long timeUnixNano, long durationNano, String profileId,
                                  int droppedAttributes, String originalPayloadFormat, String originalPayloadHex,
                                  List<Attribute> attributes, List<ResolvedSample> samples) {
    }

    /** One sample: its stack leaf first, values, timestamps, attributes and span link ({@code trace/span}, or empty). */
    public record ResolvedSample(List<Frame> stack, List<Long> values, List<Long> timestamps,
                                 List<Attribute> attributes, String link) {
    }

    /** One location: its mapping, address, attributes and lines (inlined functions first, as stored). */
    public record Frame(String mapping, long address, List<String> lines, List<Attribute> attributes) {
    }

    /** An attribute with its value resolved ({@code unit} empty for resource and scope attributes). */
    public record Attribute(String key, String value, String unit) {
    }

    private final ProfilesDictionary dictionary;

    private ResolvedProfiles(ProfilesDictionary dictionary) {
        this.dictionary = dictionary;
    }

    /** Every profile of the request, in request order. */
    public static List<ResolvedProfile> of(ExportProfilesServiceRequest request) {
        ResolvedProfiles resolver = new ResolvedProfiles(request.getDictionary());
        List<ResolvedProfile> profiles = new ArrayList<>();
        for (ResourceProfiles resource : request.getResourceProfilesList()) {
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    profiles.add(resolver.profile(resource, scope, profile));
                }
            }
        }
        return profiles;
    }

    private ResolvedProfile profile(ResourceProfiles resource, ScopeProfiles scope, Profile profile) {
        List<ResolvedSample> samples = new ArrayList<>();
        for (Sample sample : profile.getSamplesList()) {
            samples.add(new ResolvedSample(stack(sample.getStackIndex()), sample.getValuesList(),
                    sample.getTimestampsUnixNanoList(), attributes(sample.getAttributeIndicesList()),
                    link(sample.getLinkIndex())));
        }
        return new ResolvedProfile(resource.getSchemaUrl(), keyValues(resource.getResource().getAttributesList()),
                scope.getScope().getName(), scope.getScope().getVersion(),
                keyValues(scope.getScope().getAttributesList()), valueType(profile.getSampleType()),
                valueType(profile.getPeriodType()), profile.getPeriod(), profile.getTimeUnixNano(),
                profile.getDurationNano(), HexFormat.of().formatHex(profile.getProfileId().toByteArray()),
                profile.getDroppedAttributesCount(), profile.getOriginalPayloadFormat(),
                HexFormat.of().formatHex(profile.getOriginalPayload().toByteArray()),
                attributes(profile.getAttributeIndicesList()), samples);
    }

    private String string(int index) {
        return dictionary.getStringTable(index);
    }

    private String valueType(ValueType type) {
        return string(type.getTypeStrindex()) + ":" + string(type.getUnitStrindex());
    }

    private List<Frame> stack(int index) {
        List<Frame> frames = new ArrayList<>();
        for (int locationIndex : dictionary.getStackTable(index).getLocationIndicesList()) {
            Location location = dictionary.getLocationTable(locationIndex);
            List<String> lines = new ArrayList<>();
            for (Line line : location.getLinesList()) {
                Function function = dictionary.getFunctionTable(line.getFunctionIndex());
                lines.add(string(function.getNameStrindex()) + " [" + string(function.getSystemNameStrindex())
                        + "] " + string(function.getFilenameStrindex()) + ":" + function.getStartLine() + " at "
                        + line.getLine() + ":" + line.getColumn());
            }
            frames.add(new Frame(mapping(location.getMappingIndex()), location.getAddress(), lines,
                    attributes(location.getAttributeIndicesList())));
        }
        return frames;
    }

    private String mapping(int index) {
        Mapping mapping = dictionary.getMappingTable(index);
        return string(mapping.getFilenameStrindex()) + " " + Long.toHexString(mapping.getMemoryStart()) + "-"
                + Long.toHexString(mapping.getMemoryLimit()) + "+" + Long.toHexString(mapping.getFileOffset()) + " "
                + attributes(mapping.getAttributeIndicesList());
    }

    /**
     * A sample's span link, empty for none: the zero link, whose ids are either empty or all zero bytes (both are
     * the zero value the proto allows for {@code link_table[0]}; the relay writes 16 and 8 zero bytes as it
     * recommends, the Collector's pdata empty ids).
     */
    private String link(int index) {
        var link = dictionary.getLinkTable(index);
        byte[] trace = link.getTraceId().toByteArray();
        byte[] span = link.getSpanId().toByteArray();
        if (allZero(trace) && allZero(span)) {
            return "";
        }
        return HexFormat.of().formatHex(trace) + "/" + HexFormat.of().formatHex(span);
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private List<Attribute> attributes(List<Integer> indices) {
        List<Attribute> attributes = new ArrayList<>();
        for (int index : indices) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            attributes.add(new Attribute(string(attribute.getKeyStrindex()), value(attribute.getValue()),
                    string(attribute.getUnitStrindex())));
        }
        return attributes;
    }

    private List<Attribute> keyValues(List<KeyValue> keyValues) {
        List<Attribute> attributes = new ArrayList<>();
        for (KeyValue keyValue : keyValues) {
            String key = keyValue.getKey().isEmpty() ? string(keyValue.getKeyStrindex()) : keyValue.getKey();
            attributes.add(new Attribute(key, value(keyValue.getValue()), ""));
        }
        return attributes;
    }

    /** A value as its type and text, a string reference resolved to the string it names. */
    private String value(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> "string " + value.getStringValue();
            case STRING_VALUE_STRINDEX -> "string " + string(value.getStringValueStrindex());
            case VALUE_NOT_SET -> "unset";
            default -> value.getValueCase() + " " + value.toString().strip();
        };
    }
}
