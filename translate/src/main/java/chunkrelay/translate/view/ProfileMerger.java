package chunkrelay.translate.view;

import chunkrelay.chunk.spans.ThreadIds;
import chunkrelay.translate.OtlpAttributes;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges OTLP profiles requests (the archived OTLP forms of chunks), one at a time, into a {@link MergedProfile},
 * keeping the samples a {@link ViewFilter} lets through. Each table of each request is mapped into the merged tables
 * the first time a kept sample reaches it, so the merge is linear in samples and holds nothing of a request once it
 * is added. Not thread-safe.
 */
public final class ProfileMerger {
    private final ViewFilter filter;
    private final MergedProfile merged = new MergedProfile();
    private final Map<MergedProfile.Function, Integer> functions = new HashMap<>();
    private final Map<MergedProfile.Location, Integer> locations = new HashMap<>();
    private final Map<StackKey, Integer> stacks = new HashMap<>();
    private final Map<MergedProfile.Thread, Integer> threads = new HashMap<>();
    private final Map<MergedProfile.Link, Integer> links = new HashMap<>();
    private final Map<GroupKey, TimestampList> groups = new LinkedHashMap<>();

    private record StackKey(int[] locations) {
        @Override
        public boolean equals(Object other) {
            return other instanceof StackKey key && Arrays.equals(locations, key.locations);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(locations);
        }
    }

    private record GroupKey(int stack, int thread, int link, long period) {
    }

    public ProfileMerger(ViewFilter filter) {
        this.filter = filter;
    }

    /** Adds the samples of one request that the filter lets through. */
    public void add(ExportProfilesServiceRequest request) {
        new RequestMapping(request.getDictionary()).add(request.getResourceProfilesList());
    }

    /** The merged profile; the merger must not be used after. */
    public MergedProfile result() {
        for (Map.Entry<GroupKey, TimestampList> group : groups.entrySet()) {
            GroupKey key = group.getKey();
            merged.samples.add(new MergedProfile.SampleGroup(key.stack(), key.thread(), key.link(), key.period(),
                    group.getValue().toArray()));
        }
        groups.clear();
        return merged;
    }

    /** The mapping of one request's dictionary into the merged tables. */
    private final class RequestMapping {
        private final ProfilesDictionary dictionary;
        private final int[] stackOf;
        private final int[] locationOf;
        private final int[] functionOf;
        private final int[] linkOf;

        RequestMapping(ProfilesDictionary dictionary) {
            this.dictionary = dictionary;
            this.stackOf = unmapped(dictionary.getStackTableCount());
            this.locationOf = unmapped(dictionary.getLocationTableCount());
            this.functionOf = unmapped(dictionary.getFunctionTableCount());
            this.linkOf = unmapped(dictionary.getLinkTableCount());
        }

        void add(List<ResourceProfiles> resources) {
            for (ResourceProfiles resource : resources) {
                String profilerId = resourceAttribute(resource, OtlpAttributes.SENTRY_PROFILER_ID);
                if (filter.profilerId() != null && !filter.profilerId().equals(profilerId)) {
                    continue;
                }
                boolean counted = false;
                for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                    for (Profile profile : scope.getProfilesList()) {
                        counted |= addProfile(profile, profilerId);
                    }
                }
                if (counted) {
                    merged.chunks++;
                }
            }
        }

        private boolean addProfile(Profile profile, String profilerId) {
            long period = profile.getPeriod();
            Map<List<Integer>, Integer> threadOfAttributes = new HashMap<>();
            boolean kept = false;
            for (Sample sample : profile.getSamplesList()) {
                int link = link(sample.getLinkIndex());
                if (filter.byLink() && !linkMatches(link)) {
                    continue;
                }
                int thread = threadOfAttributes.computeIfAbsent(sample.getAttributeIndicesList(),
                        attributes -> thread(profilerId, attributes));
                if (thread < 0) {
                    continue;
                }
                TimestampList timestamps = null;
                for (long timestamp : sample.getTimestampsUnixNanoList()) {
                    if (timestamp < filter.fromNanos() || timestamp >= filter.toNanos()) {
                        continue;
                    }
                    if (timestamps == null) {
                        int stack = stack(sample.getStackIndex());
                        timestamps = groups.computeIfAbsent(new GroupKey(stack, thread, link, period),
                                k -> new TimestampList());
                    }
                    timestamps.add(timestamp);
                    merged.startNanos = Math.min(merged.startNanos, timestamp);
                    merged.endNanos = Math.max(merged.endNanos, timestamp + period);
                    kept = true;
                }
            }
            if (kept) {
                merged.periodNanos = Math.max(merged.periodNanos, period);
            }
            return kept;
        }

        private boolean linkMatches(int link) {
            if (link < 0) {
                return false;
            }
            MergedProfile.Link known = merged.links.get(link);
            return (filter.traceId() == null || filter.traceId().equals(known.traceId()))
                    && (filter.spanId() == null || filter.spanId().equals(known.spanId()));
        }

        /** The merged thread of a sample's attributes, or -1 when the filter leaves its thread out. */
        private int thread(String profilerId, List<Integer> attributeIndices) {
            String threadId = null;
            String threadName = null;
            for (int index : attributeIndices) {
                KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
                String key = dictionary.getStringTable(attribute.getKeyStrindex());
                if (key.equals(OtlpAttributes.THREAD_ID)) {
                    threadId = ThreadIds.canonical(text(attribute.getValue()));
                } else if (key.equals(OtlpAttributes.THREAD_NAME)) {
                    threadName = text(attribute.getValue());
                }
            }
            if (filter.threadId() != null && !filter.threadId().equals(threadId)) {
                return -1;
            }
            MergedProfile.Thread thread = new MergedProfile.Thread(profilerId, threadId, threadName);
            return threads.computeIfAbsent(thread, t -> {
                merged.threads.add(t);
                return merged.threads.size() - 1;
            });
        }

        /** The merged link of a link index, or -1 for the zero link. */
        private int link(int index) {
            if (index <= 0 || index >= linkOf.length) {
                return -1;
            }
            if (linkOf[index] == -1) {
                io.opentelemetry.proto.profiles.v1development.Link link = dictionary.getLinkTable(index);
                MergedProfile.Link key = new MergedProfile.Link(HexFormat.of().formatHex(link.getTraceId().toByteArray()),
                        HexFormat.of().formatHex(link.getSpanId().toByteArray()));
                linkOf[index] = links.computeIfAbsent(key, k -> {
                    merged.links.add(k);
                    return merged.links.size() - 1;
                });
            }
            return linkOf[index];
        }

        private int stack(int index) {
            if (stackOf[index] == -1) {
                List<Integer> dictionaryLocations = dictionary.getStackTable(index).getLocationIndicesList();
                if (dictionaryLocations.isEmpty()) {
                    // an SDK's idle sample (the JS self-profiling API records idle time so): one named frame, so
                    // that no export drops it or writes a nameless line
                    stackOf[index] = stacks.computeIfAbsent(new StackKey(new int[] {noStackLocation()}), k -> {
                        merged.stacks.add(k.locations());
                        return merged.stacks.size() - 1;
                    });
                    return stackOf[index];
                }
                int[] mapped = new int[dictionaryLocations.size()];
                for (int i = 0; i < mapped.length; i++) {
                    mapped[i] = location(dictionaryLocations.get(i));
                }
                stackOf[index] = stacks.computeIfAbsent(new StackKey(mapped), k -> {
                    merged.stacks.add(k.locations());
                    return merged.stacks.size() - 1;
                });
            }
            return stackOf[index];
        }

        private int location(int index) {
            if (locationOf[index] == -1) {
                io.opentelemetry.proto.profiles.v1development.Location location = dictionary.getLocationTable(index);
                List<MergedProfile.Line> lines = new ArrayList<>(location.getLinesCount());
                for (io.opentelemetry.proto.profiles.v1development.Line line : location.getLinesList()) {
                    lines.add(new MergedProfile.Line(function(line.getFunctionIndex()), line.getLine()));
                }
                MergedProfile.Location key = new MergedProfile.Location(location.getAddress(), List.copyOf(lines));
                locationOf[index] = locations.computeIfAbsent(key, k -> {
                    merged.locations.add(k);
                    return merged.locations.size() - 1;
                });
            }
            return locationOf[index];
        }

        private int function(int index) {
            if (functionOf[index] == -1) {
                io.opentelemetry.proto.profiles.v1development.Function function = dictionary.getFunctionTable(index);
                MergedProfile.Function key = new MergedProfile.Function(
                        dictionary.getStringTable(function.getNameStrindex()),
                        emptyToNull(dictionary.getStringTable(function.getSystemNameStrindex())),
                        emptyToNull(dictionary.getStringTable(function.getFilenameStrindex())));
                functionOf[index] = functions.computeIfAbsent(key, k -> {
                    merged.functions.add(k);
                    return merged.functions.size() - 1;
                });
            }
            return functionOf[index];
        }
    }

    /** The merged location of the {@link MergedProfile#NO_STACK} frame, added on first use. */
    private int noStackLocation() {
        if (merged.noStackLocation < 0) {
            merged.functions.add(new MergedProfile.Function(MergedProfile.NO_STACK, null, null));
            merged.locations.add(new MergedProfile.Location(0, List.of(
                    new MergedProfile.Line(merged.functions.size() - 1, 0))));
            merged.noStackLocation = merged.locations.size() - 1;
        }
        return merged.noStackLocation;
    }

    private static String resourceAttribute(ResourceProfiles resource, String key) {
        for (KeyValue attribute : resource.getResource().getAttributesList()) {
            if (attribute.getKey().equals(key)) {
                return text(attribute.getValue());
            }
        }
        return null;
    }

    private static String text(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            default -> null;
        };
    }

    private static String emptyToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    private static int[] unmapped(int length) {
        int[] array = new int[length];
        Arrays.fill(array, -1);
        return array;
    }

    /** A growable list of timestamps without boxing. */
    private static final class TimestampList {
        private long[] values = new long[8];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
