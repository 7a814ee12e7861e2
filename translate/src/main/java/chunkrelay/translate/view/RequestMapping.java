package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexRemap;
import chunkrelay.chunk.spans.ThreadIds;
import chunkrelay.translate.OtlpAttributes;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;

import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The mapping of one OTLP request's dictionary into the merged tables: each table entry is mapped the first time a
 * kept sample reaches it, its frames by {@link FrameRemap}. Not thread-safe.
 */
final class RequestMapping {
    private final MergedTables tables;
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final ProfilesDictionary dictionary;
    private final FrameRemap frames;
    private final IndexRemap linkOf;
    private final long fromNanos;
    private final long toNanos;

    RequestMapping(MergedTables tables, ProfilesDictionary dictionary, long fromNanos, long toNanos) {
        this.tables = tables;
        this.filter = tables.filter();
        this.grid = tables.grid();
        this.dictionary = dictionary;
        this.fromNanos = fromNanos;
        this.toNanos = toNanos;
        this.frames = new FrameRemap(tables, new FrameSource.Dictionary(dictionary), true);
        this.linkOf = new IndexRemap(dictionary.getLinkTableCount());
    }

    void add(List<ResourceProfiles> resources, String platform, String release, String environment) {
        for (ResourceProfiles resource : resources) {
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    ChunkAttributes chunk = new ChunkAttributes(profilerId(resource, profile), platform, release,
                            environment);
                    if (!chunk.passes(filter)) {
                        continue;
                    }
                    long first = addProfile(profile, chunk);
                    // a chunk counts in the range of its first sample, so that counts of adjacent ranges add up
                    if (first >= fromNanos && first < toNanos) {
                        tables.countChunk(chunk, 1, first);
                    }
                }
            }
        }
    }

    /**
     * The profiler id of a chunk's profile: a profile attribute, or a resource attribute in OTLP archived before the
     * translation moved it off the resource.
     */
    private String profilerId(ResourceProfiles resource, Profile profile) {
        for (int index : profile.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            if (dictionary.getStringTable(attribute.getKeyStrindex()).equals(OtlpAttributes.SENTRY_PROFILER_ID)) {
                return text(attribute.getValue());
            }
        }
        return resourceAttribute(resource, OtlpAttributes.SENTRY_PROFILER_ID);
    }

    /** Adds a profile's kept samples; returns its first sample's time, kept or not. */
    private long addProfile(Profile profile, ChunkAttributes chunk) {
        long period = profile.getPeriod();
        String periodType = dictionary.getStringTable(profile.getPeriodType().getTypeStrindex());
        Map<List<Integer>, Integer> threadOfAttributes = new HashMap<>();
        long first = Long.MAX_VALUE;
        for (Sample sample : profile.getSamplesList()) {
            // timestamps by index: the list's iterator boxes each one
            int timestamps = sample.getTimestampsUnixNanoCount();
            for (int i = 0; i < timestamps; i++) {
                first = Math.min(first, sample.getTimestampsUnixNano(i));
            }
            int link = link(sample.getLinkIndex());
            if (filter.byLink() && !tables.linkMatches(link)) {
                continue;
            }
            int thread = threadOfAttributes.computeIfAbsent(sample.getAttributeIndicesList(),
                    attributes -> thread(chunk, attributes));
            if (thread < 0) {
                continue;
            }
            int group = -1;
            long[] steps = grid == null ? null : tables.stepCounts(thread);
            // a run of samples in one step (every sample, unless the tables are split per step): one add per run
            int runStep = Integer.MIN_VALUE;
            long count = 0;
            long firstKept = Long.MAX_VALUE;
            long lastKept = Long.MIN_VALUE;
            for (int i = 0; i < timestamps; i++) {
                long timestamp = sample.getTimestampsUnixNano(i);
                if (timestamp < fromNanos || timestamp >= toNanos) {
                    continue;
                }
                int step = grid == null ? -1 : grid.stepOf(timestamp);
                if (tables.perStep() && step != runStep && count > 0) {
                    group = group >= 0 ? group : group(sample, thread, link, periodType, period);
                    tables.addSamples(group, count, firstKept, lastKept);
                    count = 0;
                    firstKept = Long.MAX_VALUE;
                    lastKept = Long.MIN_VALUE;
                }
                runStep = step;
                count++;
                firstKept = Math.min(firstKept, timestamp);
                lastKept = Math.max(lastKept, timestamp);
                if (step >= 0) {
                    steps[step]++;
                }
            }
            if (count > 0) {
                group = group >= 0 ? group : group(sample, thread, link, periodType, period);
                tables.addSamples(group, count, firstKept, lastKept);
            }
        }
        return first;
    }

    /** The merged sample group of a sample's stack, thread and link: looked up once for all its timestamps. */
    private int group(Sample sample, int thread, int link, String periodType, long period) {
        return tables.group(frames.stack(sample.getStackIndex(), periodType), thread, link, periodType, period);
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
        return tables.thread(new MergedProfile.Thread(chunk.profilerId(), threadId, threadName, chunk));
    }

    /** The merged link of a link index, or -1 for the zero link. */
    private int link(int index) {
        if (index <= 0 || index >= linkOf.size()) {
            return -1;
        }
        int known = linkOf.get(index);
        if (known != IndexRemap.UNMAPPED) {
            return known;
        }
        io.opentelemetry.proto.profiles.v1development.Link link = dictionary.getLinkTable(index);
        return linkOf.set(index, tables.link(new MergedProfile.Link(
                HexFormat.of().formatHex(link.getTraceId().toByteArray()),
                HexFormat.of().formatHex(link.getSpanId().toByteArray()))));
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
}
