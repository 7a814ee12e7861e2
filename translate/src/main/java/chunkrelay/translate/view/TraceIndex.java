package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The traces of a {@link MergedProfile} (profile → trace): every trace whose spans have linked samples, with each
 * span's sample count and the time of its first and last sample, from the samples' links alone.
 */
public final class TraceIndex {
    /** One span of a trace and its linked samples. */
    public record SpanSamples(String spanId, long samples, long firstSampleNanos, long lastSampleNanos) {
    }

    /** One trace: its linked samples in all, and per span, the busiest span first. */
    public record TraceSummary(String traceId, long samples, long firstSampleNanos, long lastSampleNanos,
                               List<SpanSamples> spans) {
    }

    private TraceIndex() {
    }

    /** The traces of a profile, the one with the earliest linked sample first. */
    public static List<TraceSummary> of(MergedProfile profile) {
        Map<String, Map<String, long[]>> byTrace = new LinkedHashMap<>();
        for (MergedProfile.SampleGroup group : profile.samples()) {
            if (group.link() < 0 || group.count() == 0) {
                continue;
            }
            MergedProfile.Link link = profile.links().get(group.link());
            // count, first, last
            long[] span = byTrace.computeIfAbsent(link.traceId(), t -> new LinkedHashMap<>())
                    .computeIfAbsent(link.spanId(), s -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE});
            span[0] += group.count();
            span[1] = Math.min(span[1], group.firstNanos());
            span[2] = Math.max(span[2], group.lastNanos());
        }
        List<TraceSummary> traces = new ArrayList<>(byTrace.size());
        for (Map.Entry<String, Map<String, long[]>> trace : byTrace.entrySet()) {
            List<SpanSamples> spans = new ArrayList<>();
            long samples = 0;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (Map.Entry<String, long[]> span : trace.getValue().entrySet()) {
                long[] counts = span.getValue();
                spans.add(new SpanSamples(span.getKey(), counts[0], counts[1], counts[2]));
                samples += counts[0];
                first = Math.min(first, counts[1]);
                last = Math.max(last, counts[2]);
            }
            spans.sort(Comparator.comparingLong(SpanSamples::samples).reversed().thenComparing(SpanSamples::spanId));
            traces.add(new TraceSummary(trace.getKey(), samples, first, last, List.copyOf(spans)));
        }
        traces.sort(Comparator.comparingLong(TraceSummary::firstSampleNanos).thenComparing(TraceSummary::traceId));
        return traces;
    }
}
