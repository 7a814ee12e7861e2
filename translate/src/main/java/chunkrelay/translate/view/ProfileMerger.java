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
import java.util.List;
import java.util.Map;

/**
 * Merges OTLP profiles requests (the archived OTLP forms of chunks) and rollups of them, one at a time, into a
 * {@link MergedProfile}, keeping the samples a {@link ViewFilter} lets through. Each table of each input is mapped
 * into the merged tables the first time a kept sample reaches it, so the merge is linear in samples and holds nothing
 * of an input once it is added. Not thread-safe.
 */
public final class ProfileMerger {
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final boolean keepChunkAttributes;
    private final MergedProfile merged = new MergedProfile();
    private final Map<MergedProfile.Function, Integer> functions = new HashMap<>();
    private final Map<MergedProfile.Location, Integer> locations = new HashMap<>();
    private final Map<StackKey, Integer> stacks = new HashMap<>();
    private final Map<MergedProfile.Thread, Integer> threads = new HashMap<>();
    private final Map<MergedProfile.Link, Integer> links = new HashMap<>();
    private final Map<GroupKey, long[]> groups = new HashMap<>();

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

    /** A merger for an answer: no step counts, threads not split by chunk attributes. */
    public ProfileMerger(ViewFilter filter) {
        this(filter, null, false);
    }

    /**
     * @param grid                the steps to count each thread's samples on (a timeline's, or a rollup's ticks),
     *                            or null
     * @param keepChunkAttributes whether threads stay apart by their chunks' attributes, as a rollup keeps them
     */
    public ProfileMerger(ViewFilter filter, TimeGrid grid, boolean keepChunkAttributes) {
        this.filter = filter;
        this.grid = grid;
        this.keepChunkAttributes = keepChunkAttributes;
        merged.grid = grid;
    }

    /** Adds the samples of one request that the filter lets through, of a chunk whose attributes are unknown. */
    public void add(ExportProfilesServiceRequest request) {
        add(request, null, null, null);
    }

    /** Adds the samples of one chunk's request that the filter lets through. */
    public void add(ExportProfilesServiceRequest request, String platform, String release, String environment) {
        add(request, platform, release, environment, filter.fromNanos(), filter.toNanos());
    }

    /**
     * Adds the samples of one chunk's request that the filter lets through within {@code [fromNanos, toNanos)} (a
     * part of the filter's range: the rest of the range is added from elsewhere); the chunk counts when its first
     * sample lies in that part.
     */
    public void add(ExportProfilesServiceRequest request, String platform, String release, String environment,
                    long fromNanos, long toNanos) {
        new RequestMapping(request.getDictionary(), Math.max(fromNanos, filter.fromNanos()),
                Math.min(toNanos, filter.toNanos())).add(request.getResourceProfilesList(), platform, release,
                environment);
    }

    /**
     * Whether a rollup can be added to this merger: its bucket lies within the filter's range and its ticks nest in
     * the grid (when there is one), and the filter asks for nothing a rollup does not keep.
     */
    public boolean accepts(Rollup rollup) {
        return rollup.startNanos() >= filter.fromNanos() && rollup.endNanos() <= filter.toNanos()
                && (grid == null || (rollup.profile().grid() != null && grid.nests(rollup.profile().grid())));
    }

    /** Adds a rollup's samples that the filter lets through ({@link #accepts} must hold). */
    public void add(Rollup rollup) {
        if (!accepts(rollup)) {
            throw new IllegalArgumentException("rollup " + rollup.startNanos() + ".." + rollup.endNanos()
                    + " does not fit this merge");
        }
        new RollupMapping(rollup.profile()).add();
    }

    /** The merged profile, in canonical order; the merger must not be used after. */
    public MergedProfile result() {
        for (Map.Entry<GroupKey, long[]> group : groups.entrySet()) {
            GroupKey key = group.getKey();
            long[] value = group.getValue();
            merged.samples.add(new MergedProfile.SampleGroup(key.stack(), key.thread(), key.link(), key.period(),
                    value[0], value[1], value[2]));
        }
        groups.clear();
        return CanonicalOrder.of(merged);
    }

    private void addSamples(int stack, int thread, int link, long period, long count, long first, long last) {
        long[] group = groups.computeIfAbsent(new GroupKey(stack, thread, link, period),
                k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE});
        group[0] += count;
        group[1] = Math.min(group[1], first);
        group[2] = Math.max(group[2], last);
        merged.startNanos = Math.min(merged.startNanos, first);
        merged.endNanos = Math.max(merged.endNanos, last + period);
        merged.periodNanos = Math.max(merged.periodNanos, period);
    }

    private int thread(MergedProfile.Thread thread) {
        MergedProfile.Thread key = keepChunkAttributes ? thread
                : new MergedProfile.Thread(thread.profilerId(), thread.threadId(), thread.name(), null);
        return threads.computeIfAbsent(key, t -> {
            merged.threads.add(t);
            if (grid != null) {
                merged.stepCounts.add(new long[grid.steps()]);
            }
            return merged.threads.size() - 1;
        });
    }

    private int link(MergedProfile.Link link) {
        return links.computeIfAbsent(link, k -> {
            merged.links.add(k);
            return merged.links.size() - 1;
        });
    }

    private int stack(int[] mappedLocations) {
        return stacks.computeIfAbsent(new StackKey(mappedLocations), k -> {
            merged.stacks.add(k.locations());
            return merged.stacks.size() - 1;
        });
    }

    private int location(MergedProfile.Location location) {
        return locations.computeIfAbsent(location, k -> {
            merged.locations.add(k);
            return merged.locations.size() - 1;
        });
    }

    private int function(MergedProfile.Function function) {
        return functions.computeIfAbsent(function, k -> {
            merged.functions.add(k);
            return merged.functions.size() - 1;
        });
    }

    private boolean linkMatches(int link) {
        if (link < 0) {
            return false;
        }
        MergedProfile.Link known = merged.links.get(link);
        return (filter.traceId() == null || filter.traceId().equals(known.traceId()))
                && (filter.spanId() == null || filter.spanId().equals(known.spanId()));
    }

    private void countChunk(ChunkAttributes attributes, long chunks) {
        merged.chunkCounts.merge(attributes, chunks, Long::sum);
    }

    /** The mapping of one request's dictionary into the merged tables. */
    private final class RequestMapping {
        private final ProfilesDictionary dictionary;
        private final int[] stackOf;
        private final int[] locationOf;
        private final int[] functionOf;
        private final int[] linkOf;
        private final long fromNanos;
        private final long toNanos;

        RequestMapping(ProfilesDictionary dictionary, long fromNanos, long toNanos) {
            this.dictionary = dictionary;
            this.fromNanos = fromNanos;
            this.toNanos = toNanos;
            this.stackOf = unmapped(dictionary.getStackTableCount());
            this.locationOf = unmapped(dictionary.getLocationTableCount());
            this.functionOf = unmapped(dictionary.getFunctionTableCount());
            this.linkOf = unmapped(dictionary.getLinkTableCount());
        }

        void add(List<ResourceProfiles> resources, String platform, String release, String environment) {
            for (ResourceProfiles resource : resources) {
                ChunkAttributes chunk = new ChunkAttributes(
                        resourceAttribute(resource, OtlpAttributes.SENTRY_PROFILER_ID), platform, release,
                        environment);
                if (!chunk.passes(filter)) {
                    continue;
                }
                long first = Long.MAX_VALUE;
                for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                    for (Profile profile : scope.getProfilesList()) {
                        first = Math.min(first, addProfile(profile, chunk));
                    }
                }
                // a chunk counts in the range of its first sample, so that counts of adjacent ranges add up
                if (first >= fromNanos && first < toNanos) {
                    countChunk(chunk, 1);
                }
            }
        }

        /** Adds a profile's kept samples; returns its first sample's time, kept or not. */
        private long addProfile(Profile profile, ChunkAttributes chunk) {
            long period = profile.getPeriod();
            Map<List<Integer>, Integer> threadOfAttributes = new HashMap<>();
            long first = Long.MAX_VALUE;
            for (Sample sample : profile.getSamplesList()) {
                for (long timestamp : sample.getTimestampsUnixNanoList()) {
                    first = Math.min(first, timestamp);
                }
                int link = link(sample.getLinkIndex());
                if (filter.byLink() && !linkMatches(link)) {
                    continue;
                }
                int thread = threadOfAttributes.computeIfAbsent(sample.getAttributeIndicesList(),
                        attributes -> thread(chunk, attributes));
                if (thread < 0) {
                    continue;
                }
                long count = 0;
                long firstKept = Long.MAX_VALUE;
                long lastKept = Long.MIN_VALUE;
                long[] steps = grid == null ? null : merged.stepCounts.get(thread);
                for (long timestamp : sample.getTimestampsUnixNanoList()) {
                    if (timestamp < fromNanos || timestamp >= toNanos) {
                        continue;
                    }
                    count++;
                    firstKept = Math.min(firstKept, timestamp);
                    lastKept = Math.max(lastKept, timestamp);
                    if (steps != null) {
                        int step = grid.stepOf(timestamp);
                        if (step >= 0) {
                            steps[step]++;
                        }
                    }
                }
                if (count > 0) {
                    addSamples(stack(sample.getStackIndex()), thread, link, period, count, firstKept, lastKept);
                }
            }
            return first;
        }

        /** The merged thread of a sample's attributes, or -1 when the filter leaves its thread out. */
        private int thread(ChunkAttributes chunk, List<Integer> attributeIndices) {
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
            return ProfileMerger.this.thread(new MergedProfile.Thread(chunk.profilerId(), threadId, threadName, chunk));
        }

        /** The merged link of a link index, or -1 for the zero link. */
        private int link(int index) {
            if (index <= 0 || index >= linkOf.length) {
                return -1;
            }
            if (linkOf[index] == -1) {
                io.opentelemetry.proto.profiles.v1development.Link link = dictionary.getLinkTable(index);
                linkOf[index] = ProfileMerger.this.link(new MergedProfile.Link(
                        HexFormat.of().formatHex(link.getTraceId().toByteArray()),
                        HexFormat.of().formatHex(link.getSpanId().toByteArray())));
            }
            return linkOf[index];
        }

        private int stack(int index) {
            if (stackOf[index] == -1) {
                List<Integer> dictionaryLocations = dictionary.getStackTable(index).getLocationIndicesList();
                if (dictionaryLocations.isEmpty()) {
                    // an SDK's idle sample (the JS self-profiling API records idle time so): one named frame, so
                    // that no export drops it or writes a nameless line
                    stackOf[index] = ProfileMerger.this.stack(new int[] {noStackLocation()});
                    return stackOf[index];
                }
                int[] mapped = new int[dictionaryLocations.size()];
                for (int i = 0; i < mapped.length; i++) {
                    mapped[i] = location(dictionaryLocations.get(i));
                }
                stackOf[index] = ProfileMerger.this.stack(mapped);
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
                locationOf[index] = ProfileMerger.this.location(
                        new MergedProfile.Location(location.getAddress(), List.copyOf(lines)));
            }
            return locationOf[index];
        }

        private int function(int index) {
            if (functionOf[index] == -1) {
                io.opentelemetry.proto.profiles.v1development.Function function = dictionary.getFunctionTable(index);
                functionOf[index] = ProfileMerger.this.function(new MergedProfile.Function(
                        dictionary.getStringTable(function.getNameStrindex()),
                        emptyToNull(dictionary.getStringTable(function.getSystemNameStrindex())),
                        emptyToNull(dictionary.getStringTable(function.getFilenameStrindex()))));
            }
            return functionOf[index];
        }
    }

    /** The mapping of one rollup's tables into the merged tables. */
    private final class RollupMapping {
        private final MergedProfile part;
        private final int[] stackOf;
        private final int[] locationOf;
        private final int[] functionOf;
        private final int[] threadOf;
        private final int[] linkOf;

        RollupMapping(MergedProfile part) {
            this.part = part;
            this.stackOf = unmapped(part.stacks.size());
            this.locationOf = unmapped(part.locations.size());
            this.functionOf = unmapped(part.functions.size());
            this.threadOf = unmapped(part.threads.size());
            this.linkOf = unmapped(part.links.size());
        }

        void add() {
            for (Map.Entry<ChunkAttributes, Long> chunks : part.chunkCounts.entrySet()) {
                if (chunks.getKey().passes(filter)) {
                    countChunk(chunks.getKey(), chunks.getValue());
                }
            }
            for (MergedProfile.SampleGroup group : part.samples) {
                int thread = thread(group.thread());
                if (thread < 0) {
                    continue;
                }
                int link = group.link() < 0 ? -1 : link(group.link());
                if (filter.byLink() && !linkMatches(link)) {
                    continue;
                }
                addSamples(stack(group.stack()), thread, link, group.periodNanos(), group.count(),
                        group.firstNanos(), group.lastNanos());
            }
            if (grid != null) {
                for (int t = 0; t < part.threads.size(); t++) {
                    if (threadOf[t] >= 0) {
                        addSteps(part.stepCounts.get(t), merged.stepCounts.get(threadOf[t]));
                    }
                }
            }
        }

        private void addSteps(long[] ticks, long[] steps) {
            TimeGrid ticksGrid = part.grid;
            for (int tick = 0; tick < ticks.length; tick++) {
                if (ticks[tick] != 0) {
                    int step = grid.stepOf(ticksGrid.originNanos() + tick * ticksGrid.stepNanos());
                    if (step >= 0) {
                        steps[step] += ticks[tick];
                    }
                }
            }
        }

        /** The merged thread of a rollup's thread, or -1 when the filter leaves it out. */
        private int thread(int index) {
            if (threadOf[index] == -1) {
                MergedProfile.Thread thread = part.threads.get(index);
                ChunkAttributes chunk = thread.chunk() != null ? thread.chunk()
                        : new ChunkAttributes(thread.profilerId(), null, null, null);
                boolean kept = chunk.passes(filter)
                        && (filter.threadId() == null || filter.threadId().equals(thread.threadId()));
                threadOf[index] = kept ? ProfileMerger.this.thread(thread) : -2;
            }
            return threadOf[index] < 0 ? -1 : threadOf[index];
        }

        private int link(int index) {
            if (linkOf[index] == -1) {
                linkOf[index] = ProfileMerger.this.link(part.links.get(index));
            }
            return linkOf[index];
        }

        private int stack(int index) {
            if (stackOf[index] == -1) {
                int[] partLocations = part.stacks.get(index);
                int[] mapped = new int[partLocations.length];
                for (int i = 0; i < mapped.length; i++) {
                    mapped[i] = part.isNoStackLocation(partLocations[i]) ? noStackLocation()
                            : location(partLocations[i]);
                }
                stackOf[index] = ProfileMerger.this.stack(mapped);
            }
            return stackOf[index];
        }

        private int location(int index) {
            if (locationOf[index] == -1) {
                MergedProfile.Location location = part.locations.get(index);
                List<MergedProfile.Line> lines = new ArrayList<>(location.lines().size());
                for (MergedProfile.Line line : location.lines()) {
                    lines.add(new MergedProfile.Line(function(line.function()), line.line()));
                }
                locationOf[index] = ProfileMerger.this.location(
                        new MergedProfile.Location(location.address(), List.copyOf(lines)));
            }
            return locationOf[index];
        }

        private int function(int index) {
            if (functionOf[index] == -1) {
                functionOf[index] = ProfileMerger.this.function(part.functions.get(index));
            }
            return functionOf[index];
        }
    }

    /** The merged location of the {@link MergedProfile#NO_STACK} frame, added on first use. */
    private int noStackLocation() {
        if (merged.noStackLocation < 0) {
            int function = function(new MergedProfile.Function(MergedProfile.NO_STACK, null, null));
            merged.noStackLocation = location(new MergedProfile.Location(0, List.of(
                    new MergedProfile.Line(function, 0))));
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
}
