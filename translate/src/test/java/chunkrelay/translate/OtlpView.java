package chunkrelay.translate;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a translated request back through its dictionary, for assertions. */
final class OtlpView {
    final ExportProfilesServiceRequest request;
    final ProfilesDictionary dictionary;
    final Profile profile;

    OtlpView(ExportProfilesServiceRequest request) {
        this.request = request;
        this.dictionary = request.getDictionary();
        this.profile = request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
    }

    String string(int index) {
        return dictionary.getStringTable(index);
    }

    Map<String, String> resource() {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (KeyValue attribute : request.getResourceProfiles(0).getResource().getAttributesList()) {
            attributes.put(attribute.getKey(), attribute.getValue().getStringValue());
        }
        return attributes;
    }

    Map<String, AnyValue> attributes(List<Integer> indices) {
        Map<String, AnyValue> attributes = new LinkedHashMap<>();
        for (int index : indices) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            attributes.put(string(attribute.getKeyStrindex()), attribute.getValue());
        }
        return attributes;
    }

    Map<String, AnyValue> attributes(Sample sample) {
        return attributes(sample.getAttributeIndicesList());
    }

    Map<String, AnyValue> attributes(Location location) {
        return attributes(location.getAttributeIndicesList());
    }

    /** The function name of a location's innermost line, "" when it has none. */
    String functionName(Location location) {
        if (location.getLinesCount() == 0) {
            return "";
        }
        return string(dictionary.getFunctionTable(location.getLines(0).getFunctionIndex()).getNameStrindex());
    }

    List<Location> locations(Sample sample) {
        List<Location> locations = new ArrayList<>();
        for (int index : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            locations.add(dictionary.getLocationTable(index));
        }
        return locations;
    }

    /** Leaf-first function names of a sample's stack. */
    List<String> functionNames(Sample sample) {
        List<String> names = new ArrayList<>();
        for (Location location : locations(sample)) {
            names.add(functionName(location));
        }
        return names;
    }

    long timestampCount() {
        long count = 0;
        for (Sample sample : profile.getSamplesList()) {
            count += sample.getTimestampsUnixNanoCount();
        }
        return count;
    }
}
