package chunkrelay.translate.view;

import chunkrelay.translate.ProfileTypes;
import com.google.perftools.profiles.ProfileProto;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a {@link MergedProfile} as a gzipped pprof {@code profile.proto}, the way {@code go tool pprof}, Pyroscope
 * and IDEs read it: sample types {@code samples/count} and, per sample type of the merged chunks (the OTLP period type,
 * {@code wall} or {@code cpu}), {@code <type>/nanoseconds}: count × the chunk's period in its own type's column and 0
 * in the other's, so wall-clock and CPU time never add up; the period type and the default sample type are the one
 * type, or {@code samples} when a range holds both (an empty answer says {@code wall}); one location per merged location with its
 * lines, functions with names and files, one mapping for everything (the frames are symbolic already), string labels
 * {@code thread.id}, {@code thread.name} and, for linked samples, {@code trace_id} and {@code span_id}. Every id is
 * its table index plus one; string 0 is "".
 */
public final class PprofWriter {
    private PprofWriter() {
    }

    public static void write(MergedProfile profile, OutputStream out) throws IOException {
        GZIPOutputStream gzip = new GZIPOutputStream(out);
        toProto(profile).writeTo(gzip);
        gzip.finish();
    }

    /** The profile before gzip. */
    public static ProfileProto.Profile toProto(MergedProfile profile) {
        Strings strings = new Strings();
        ProfileProto.Profile.Builder pprof = ProfileProto.Profile.newBuilder();
        List<String> types = profile.sampleTypes().isEmpty() ? List.of(ProfileTypes.WALL)
                : new ArrayList<>(profile.sampleTypes());
        pprof.addSampleType(valueType(strings, ProfileTypes.SAMPLES, ProfileTypes.COUNT));
        for (String type : types) {
            pprof.addSampleType(valueType(strings, type, ProfileTypes.NANOSECONDS));
        }
        pprof.setPeriodType(valueType(strings, types.get(0), ProfileTypes.NANOSECONDS));
        pprof.setPeriod(profile.periodNanos());
        pprof.setDefaultSampleType(strings.index(types.size() == 1 ? types.get(0) : ProfileTypes.SAMPLES));
        if (profile.sampleCount() > 0) {
            pprof.setTimeNanos(profile.startNanos());
            pprof.setDurationNanos(profile.endNanos() - profile.startNanos());
        }
        pprof.addComment(strings.index("chunk-relay: " + profile.chunks() + " chunk(s) merged"));
        // one mapping that says the frames are symbolised, so pprof does not look for binaries
        pprof.addMapping(ProfileProto.Mapping.newBuilder().setId(1).setFilename(strings.index("chunk-relay"))
                .setHasFunctions(true).setHasFilenames(true).setHasLineNumbers(true)
                .setHasInlineFrames(true));
        for (int f = 0; f < profile.functions().size(); f++) {
            MergedProfile.Function function = profile.functions().get(f);
            pprof.addFunction(ProfileProto.Function.newBuilder().setId(f + 1L)
                    .setName(strings.index(function.name()))
                    .setSystemName(strings.index(function.systemName() != null ? function.systemName()
                            : function.name()))
                    .setFilename(strings.index(function.file())));
        }
        for (int l = 0; l < profile.locations().size(); l++) {
            MergedProfile.Location location = profile.locations().get(l);
            ProfileProto.Location.Builder pprofLocation = ProfileProto.Location.newBuilder().setId(l + 1L)
                    .setMappingId(1).setAddress(location.address());
            for (MergedProfile.Line line : location.lines()) {
                pprofLocation.addLine(ProfileProto.Line.newBuilder().setFunctionId(line.function() + 1L)
                        .setLine(line.line()));
            }
            pprof.addLocation(pprofLocation);
        }
        for (MergedProfile.SampleGroup group : profile.samples()) {
            ProfileProto.Sample.Builder sample = ProfileProto.Sample.newBuilder();
            for (int location : profile.stacks().get(group.stack())) {
                sample.addLocationId(location + 1L);
            }
            long count = group.count();
            sample.addValue(count);
            for (String type : types) {
                sample.addValue(type.equals(group.periodType()) ? count * group.periodNanos() : 0);
            }
            MergedProfile.Thread thread = profile.threads().get(group.thread());
            label(sample, strings, "thread.id", thread.threadId());
            label(sample, strings, "thread.name", thread.name());
            if (group.link() >= 0) {
                MergedProfile.Link link = profile.links().get(group.link());
                label(sample, strings, "trace_id", link.traceId());
                label(sample, strings, "span_id", link.spanId());
            }
            pprof.addSample(sample);
        }
        pprof.addAllStringTable(strings.table.keySet());
        return pprof.build();
    }

    private static void label(ProfileProto.Sample.Builder sample, Strings strings, String key, String value) {
        if (value != null && !value.isEmpty()) {
            sample.addLabel(ProfileProto.Label.newBuilder().setKey(strings.index(key)).setStr(strings.index(value)));
        }
    }

    private static ProfileProto.ValueType valueType(Strings strings, String type, String unit) {
        return ProfileProto.ValueType.newBuilder().setType(strings.index(type)).setUnit(strings.index(unit)).build();
    }

    /** The string table, "" first, each string once. */
    private static final class Strings {
        private final Map<String, Integer> table = new java.util.LinkedHashMap<>(Map.of());

        Strings() {
            table.put("", 0);
        }

        long index(String value) {
            if (value == null) {
                return 0;
            }
            return table.computeIfAbsent(value, v -> table.size());
        }
    }
}
