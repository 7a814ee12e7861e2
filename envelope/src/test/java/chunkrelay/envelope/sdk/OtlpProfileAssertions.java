package chunkrelay.envelope.sdk;

import chunkrelay.translate.OtlpInvariants;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks on the OTLP form the relay made of an SDK run's chunks: valid for consumers, and showing the busy
 * functions by name on samples of the busy thread ({@code thread.id} / {@code thread.name} sample attributes).
 */
public final class OtlpProfileAssertions {

    /** As for the chunks: the busy thread must show each function on at least two sampled timestamps. */
    private static final int MIN_SAMPLES = 2;

    private OtlpProfileAssertions() {
    }

    public static void assertValid(String sdk, String stem, ExportProfilesServiceRequest request) {
        List<OtlpInvariants.Violation> violations = OtlpInvariants.check(request);
        if (!violations.isEmpty()) {
            throw new AssertionError(sdk + " SDK, step 'otlp': the OTLP form of " + stem + " breaks invariants: "
                    + violations);
        }
    }

    public static void assertBusyWorkProfiled(ExpectedProfile expected, List<ExportProfilesServiceRequest> requests) {
        String where = expected.sdk() + " SDK, step 'otlp'";
        if (requests.isEmpty()) {
            throw new AssertionError(where + ": no OTLP profile to look at");
        }
        for (String function : expected.busyFunctions()) {
            if (requests.stream().noneMatch(r -> r.getDictionary().getStringTableList().stream()
                    .anyMatch(name -> names(name, function)))) {
                throw new AssertionError(where + ": '" + function + "' is not in the string table of any of "
                        + requests.size() + " OTLP profile(s)");
            }
            long samples = requests.stream().mapToLong(r -> samplesThrough(r, function, expected.busyThread())).sum();
            if (samples < MIN_SAMPLES) {
                throw new AssertionError(where + ": '" + function + "' is on " + samples + " sampled timestamp(s) of"
                        + " the " + expected.busyThread() + ", expected at least " + MIN_SAMPLES + "; threads: "
                        + threads(requests));
            }
        }
    }

    /** Timestamps (or values) of samples on the busy thread whose stack passes through {@code function}. */
    private static long samplesThrough(ExportProfilesServiceRequest request, String function,
                                       ExpectedProfile.BusyThread thread) {
        ProfilesDictionary dictionary = request.getDictionary();
        long count = 0;
        for (Profile profile : profiles(request)) {
            for (Sample sample : profile.getSamplesList()) {
                if (onThread(dictionary, sample, thread) && stackThrough(dictionary, sample, function)) {
                    count += Math.max(sample.getTimestampsUnixNanoCount(), sample.getValuesCount());
                }
            }
        }
        return count;
    }

    /** Whether a function name is {@code function}: as written, or qualified by its class on JVM platforms. */
    private static boolean names(String name, String function) {
        return name.equals(function) || name.endsWith("." + function);
    }

    private static boolean stackThrough(ProfilesDictionary dictionary, Sample sample, String function) {
        for (int locationIndex : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            Location location = dictionary.getLocationTable(locationIndex);
            for (Line line : location.getLinesList()) {
                int name = dictionary.getFunctionTable(line.getFunctionIndex()).getNameStrindex();
                if (names(dictionary.getStringTable(name), function)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean onThread(ProfilesDictionary dictionary, Sample sample, ExpectedProfile.BusyThread thread) {
        String id = null;
        String name = null;
        for (int index : sample.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            String key = dictionary.getStringTable(attribute.getKeyStrindex());
            if (key.equals("thread.id")) {
                id = text(attribute.getValue());
            } else if (key.equals("thread.name")) {
                name = text(attribute.getValue());
            }
        }
        return thread.isThread(id, name);
    }

    private static String text(AnyValue value) {
        return switch (value.getValueCase()) {
            case INT_VALUE -> Long.toString(value.getIntValue());
            case STRING_VALUE -> value.getStringValue();
            default -> value.toString();
        };
    }

    private static String threads(List<ExportProfilesServiceRequest> requests) {
        Set<String> threads = new TreeSet<>();
        for (ExportProfilesServiceRequest request : requests) {
            ProfilesDictionary dictionary = request.getDictionary();
            for (Profile profile : profiles(request)) {
                for (Sample sample : profile.getSamplesList()) {
                    StringBuilder thread = new StringBuilder();
                    for (int index : sample.getAttributeIndicesList()) {
                        KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
                        String key = dictionary.getStringTable(attribute.getKeyStrindex());
                        if (key.startsWith("thread.")) {
                            thread.append(key).append('=').append(text(attribute.getValue())).append(' ');
                        }
                    }
                    threads.add(thread.toString().trim());
                }
            }
        }
        return threads.toString();
    }

    private static List<Profile> profiles(ExportProfilesServiceRequest request) {
        return request.getResourceProfilesList().stream()
                .map(ResourceProfiles::getScopeProfilesList).flatMap(List::stream)
                .map(ScopeProfiles::getProfilesList).flatMap(List::stream)
                .toList();
    }
}
