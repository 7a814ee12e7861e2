package chunkrelay.translate.view;

import chunkrelay.translate.OtlpAttributes;
import chunkrelay.translate.ProfileTypes;
import chunkrelay.translate.ProfilesDictionaryBuilder;
import chunkrelay.translate.ThreadAttributes;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import io.opentelemetry.proto.resource.v1.Resource;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A {@link MergedProfile} as one OTLP profiles request: one profile per sample type (the period type, {@code wall} or
 * {@code cpu}, as the chunks said it: a range holding both keeps them apart) with every merged sample of that type (its
 * count, thread attributes and link), the dictionary rebuilt without orphans; a profile attribute names the profiler
 * when the range holds one, and each sample names its profiler when it holds several.
 */
public final class OtlpViewWriter {
    private OtlpViewWriter() {
    }

    public static ExportProfilesServiceRequest build(MergedProfile profile, String scopeName) {
        ProfilesDictionaryBuilder dictionary = new ProfilesDictionaryBuilder();
        int[] functions = new int[profile.functions().size()];
        for (int f = 0; f < functions.length; f++) {
            MergedProfile.Function function = profile.functions().get(f);
            functions[f] = dictionary.function(Function.newBuilder().setNameStrindex(dictionary.string(function.name()))
                    .setSystemNameStrindex(dictionary.string(function.systemName()))
                    .setFilenameStrindex(dictionary.string(function.file())).build());
        }
        int[] locations = new int[profile.locations().size()];
        for (int l = 0; l < locations.length; l++) {
            MergedProfile.Location location = profile.locations().get(l);
            Location.Builder otlp = Location.newBuilder().setAddress(location.address());
            for (MergedProfile.Line line : location.lines()) {
                otlp.addLines(Line.newBuilder().setFunctionIndex(functions[line.function()]).setLine(line.line()));
            }
            locations[l] = dictionary.location(otlp.build());
        }
        Set<String> profilers = profile.threads().stream().map(MergedProfile.Thread::profilerId)
                .filter(p -> p != null).collect(Collectors.toCollection(TreeSet::new));
        // groups of chunks with different periods share (stack, thread, link): one OTLP sample each, per sample type
        Map<String, Map<List<Integer>, List<MergedProfile.SampleGroup>>> byType = new TreeMap<>();
        for (MergedProfile.SampleGroup group : profile.samples()) {
            byType.computeIfAbsent(group.periodType(), t -> new LinkedHashMap<>())
                    .computeIfAbsent(List.of(group.stack(), group.thread(), group.link()), k -> new ArrayList<>())
                    .add(group);
        }
        if (byType.isEmpty()) {
            byType.put(ProfileTypes.WALL, Map.of());
        }
        ScopeProfiles.Builder scope = ScopeProfiles.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName(scopeName));
        for (Map.Entry<String, Map<List<Integer>, List<MergedProfile.SampleGroup>>> type : byType.entrySet()) {
            Profile.Builder otlpProfile = Profile.newBuilder()
                    .setSampleType(ValueType.newBuilder().setTypeStrindex(dictionary.string(ProfileTypes.SAMPLES))
                            .setUnitStrindex(dictionary.string(ProfileTypes.COUNT)))
                    .setPeriodType(ValueType.newBuilder().setTypeStrindex(dictionary.string(type.getKey()))
                            .setUnitStrindex(dictionary.string(ProfileTypes.NANOSECONDS)))
                    .setPeriod(profile.periodNanos());
            if (profile.sampleCount() > 0) {
                otlpProfile.setTimeUnixNano(profile.startNanos())
                        .setDurationNano(profile.endNanos() - profile.startNanos());
            }
            if (profilers.size() == 1) {
                otlpProfile.addAttributeIndices(dictionary.attribute(OtlpAttributes.SENTRY_PROFILER_ID,
                        profilers.iterator().next()));
            }
            for (List<MergedProfile.SampleGroup> same : type.getValue().values()) {
                otlpProfile.addSamples(sample(profile, same, locations, profilers.size() > 1, dictionary));
            }
            scope.addProfiles(otlpProfile);
        }
        return ExportProfilesServiceRequest.newBuilder()
                .addResourceProfiles(ResourceProfiles.newBuilder().setResource(Resource.newBuilder())
                        .addScopeProfiles(scope))
                .setDictionary(dictionary.build())
                .build();
    }

    private static Sample sample(MergedProfile profile, List<MergedProfile.SampleGroup> same, int[] locations,
                                 boolean severalProfilers, ProfilesDictionaryBuilder dictionary) {
        MergedProfile.SampleGroup group = same.get(0);
        Stack.Builder stack = Stack.newBuilder();
        for (int location : profile.stacks().get(group.stack())) {
            stack.addLocationIndices(locations[location]);
        }
        Sample.Builder sample = Sample.newBuilder().setStackIndex(dictionary.stack(stack.build()));
        MergedProfile.Thread thread = profile.threads().get(group.thread());
        if (thread.threadId() != null) {
            sample.addAttributeIndices(dictionary.attribute(OtlpAttributes.THREAD_ID,
                    ThreadAttributes.threadIdValue(thread.threadId()), null));
        }
        if (thread.name() != null) {
            sample.addAttributeIndices(dictionary.attribute(OtlpAttributes.THREAD_NAME, thread.name()));
        }
        if (severalProfilers && thread.profilerId() != null) {
            // threads of different profilers stay apart, as in the archived forms
            sample.addAttributeIndices(dictionary.attribute(OtlpAttributes.SENTRY_PROFILER_ID, thread.profilerId()));
        }
        if (group.link() >= 0) {
            MergedProfile.Link link = profile.links().get(group.link());
            sample.setLinkIndex(dictionary.link(Link.newBuilder()
                    .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(link.traceId())))
                    .setSpanId(ByteString.copyFrom(HexFormat.of().parseHex(link.spanId()))).build()));
        }
        long count = 0;
        for (MergedProfile.SampleGroup part : same) {
            count += part.count();
        }
        // merged samples are counts (OTLP's aggregated form): a range's answer keeps no per-sample times
        return sample.addValues(count).build();
    }
}
