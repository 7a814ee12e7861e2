package chunkrelay.translate.export;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds OTLP profile requests with the generated builders, deterministically, so a test can tell which
 * sample it is looking at from its first timestamp alone ({@link #sampleNumber}) and what it must resolve to.
 *
 * <p>Shape: {@code stacks} stacks; stack {@code s} holds locations {@code s, s+1, s+2} (mod the location
 * count), each with one line calling function {@code f<location>} and a mapping of its own; sample {@code k}
 * uses stack {@code k % stacks}, attribute {@code thread.id = k % threads} and {@code timestamps} timestamps
 * starting at {@link #firstTimestamp}{@code (k)}; every fourth sample carries a link.
 */
final class SyntheticProfiles {
    static final long START = 1_700_000_000_000_000_000L;
    static final int LOCATIONS_PER_STACK = 3;

    final int stacks;
    final int locations;
    final int threads;
    final int timestamps;

    SyntheticProfiles(int stacks, int locations, int threads, int timestamps) {
        this.stacks = stacks;
        this.locations = locations;
        this.threads = threads;
        this.timestamps = timestamps;
    }

    long firstTimestamp(int sample) {
        return START + (long) sample * timestamps * 10;
    }

    int sampleNumber(Sample sample) {
        return (int) ((sample.getTimestampsUnixNano(0) - START) / ((long) timestamps * 10));
    }

    /** Function names, leaf first, that sample {@code k} must resolve to. */
    List<String> expectedFrames(int sample) {
        int stack = sample % stacks;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < LOCATIONS_PER_STACK; i++) {
            names.add("f" + (stack + i) % locations);
        }
        return names;
    }

    long expectedThread(int sample) {
        return sample % threads;
    }

    /** The full dictionary; strings: 0 "", 1.. fixed names, then function and file names. */
    ProfilesDictionary dictionary() {
        ProfilesDictionary.Builder d = ProfilesDictionary.newBuilder();
        List<String> strings = new ArrayList<>(List.of("", "samples", "count", "cpu", "nanoseconds", "thread.id",
                "service.name", "profile.frame.type", "jvm", "unused string"));
        d.addMappingTable(Mapping.getDefaultInstance());
        d.addLocationTable(Location.getDefaultInstance());
        d.addFunctionTable(Function.getDefaultInstance());
        d.addLinkTable(Link.newBuilder().setTraceId(ByteString.copyFrom(new byte[16]))
                .setSpanId(ByteString.copyFrom(new byte[8])));
        d.addAttributeTable(KeyValueAndUnit.getDefaultInstance());
        d.addStackTable(Stack.getDefaultInstance());
        // attribute 1: profile.frame.type = jvm (by strindex); 2..threads+1: thread.id = t
        d.addAttributeTable(KeyValueAndUnit.newBuilder().setKeyStrindex(7)
                .setValue(AnyValue.newBuilder().setStringValueStrindex(8)));
        for (int t = 0; t < threads; t++) {
            d.addAttributeTable(KeyValueAndUnit.newBuilder().setKeyStrindex(5)
                    .setValue(AnyValue.newBuilder().setIntValue(t)));
        }
        for (int l = 0; l < locations; l++) {
            strings.add("f" + l);
            strings.add("file" + l + ".java");
            strings.add("lib" + l + ".so");
            int name = strings.size() - 3;
            d.addFunctionTable(Function.newBuilder().setNameStrindex(name).setSystemNameStrindex(name)
                    .setFilenameStrindex(name + 1));
            // the mapping's file is a string of its own, so that only the mapping reaches it
            d.addMappingTable(Mapping.newBuilder().setMemoryStart(l * 4096L).setMemoryLimit(l * 4096L + 4096)
                    .setFilenameStrindex(name + 2));
            d.addLocationTable(Location.newBuilder().setMappingIndex(l + 1).setAddress(l)
                    .addLines(Line.newBuilder().setFunctionIndex(l + 1).setLine(l + 1))
                    .addAttributeIndices(1));
        }
        for (int s = 0; s < stacks; s++) {
            Stack.Builder stack = Stack.newBuilder();
            for (int i = 0; i < LOCATIONS_PER_STACK; i++) {
                stack.addLocationIndices((s + i) % locations + 1);
            }
            d.addStackTable(stack);
        }
        for (int link = 1; link <= 3; link++) {
            byte[] trace = new byte[16];
            byte[] span = new byte[8];
            trace[0] = (byte) link;
            span[0] = (byte) link;
            d.addLinkTable(Link.newBuilder().setTraceId(ByteString.copyFrom(trace)).setSpanId(ByteString.copyFrom(span)));
        }
        d.addAllStringTable(strings);
        return d.build();
    }

    Sample sample(int k) {
        Sample.Builder sample = Sample.newBuilder()
                .setStackIndex(k % stacks + 1)
                .addAttributeIndices(2 + (int) expectedThread(k));
        if (k % 4 == 0) {
            sample.setLinkIndex(1 + k % 3);
        }
        long first = firstTimestamp(k);
        for (int i = 0; i < timestamps; i++) {
            sample.addTimestampsUnixNano(first + i);
        }
        return sample.build();
    }

    Profile profile(int fromSample, int toSample) {
        Profile.Builder profile = Profile.newBuilder()
                .setSampleType(ValueType.newBuilder().setTypeStrindex(1).setUnitStrindex(2))
                .setPeriodType(ValueType.newBuilder().setTypeStrindex(3).setUnitStrindex(4))
                .setPeriod(9_900_990)
                .setTimeUnixNano(START)
                .setDurationNano(firstTimestamp(toSample) - START + timestamps);
        for (int k = fromSample; k < toSample; k++) {
            profile.addSamples(sample(k));
        }
        return profile.build();
    }

    /** One resource, one scope, one profile with {@code samples} samples. */
    ExportProfilesServiceRequest request(int samples) {
        return ExportProfilesServiceRequest.newBuilder()
                .setDictionary(dictionary())
                .addResourceProfiles(ResourceProfiles.newBuilder()
                        .setResource(resource("checkout"))
                        .addScopeProfiles(ScopeProfiles.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("chunk-relay"))
                                .addProfiles(profile(0, samples))))
                .build();
    }

    /** Two resources; the first with two scopes; profiles split the samples {@code [0, samples)} in order. */
    ExportProfilesServiceRequest nestedRequest(int samples) {
        int q = samples / 4;
        return ExportProfilesServiceRequest.newBuilder()
                .setDictionary(dictionary())
                .addResourceProfiles(ResourceProfiles.newBuilder()
                        .setResource(resource("checkout"))
                        .addScopeProfiles(ScopeProfiles.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("scope-a"))
                                .addProfiles(profile(0, q))
                                .addProfiles(profile(q, 2 * q)))
                        .addScopeProfiles(ScopeProfiles.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("scope-b"))
                                .addProfiles(profile(2 * q, 3 * q))))
                .addResourceProfiles(ResourceProfiles.newBuilder()
                        .setResource(resource("billing"))
                        .addScopeProfiles(ScopeProfiles.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("scope-c"))
                                .addProfiles(profile(3 * q, samples))))
                .build();
    }

    private static Resource resource(String service) {
        return Resource.newBuilder().addAttributes(KeyValue.newBuilder().setKey("service.name")
                .setValue(AnyValue.newBuilder().setStringValue(service))).build();
    }
}
