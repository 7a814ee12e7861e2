package chunkrelay.envelope.links;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.telemetry.RelayMeter;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The spans this relay has seen, per (project, profiler id), bounded by count ({@code relay.links.max-spans}) and
 * age: a profiler's spans are dropped {@code relay.links.max-age} after its last span arrived, and a span that ended
 * more than that before the profiler's newest span is dropped when the next one arrives.
 *
 * <p>A span without a profiler id (JavaScript's v2 children) waits here for its segment, keyed by (project, trace,
 * segment span id), and takes the segment's profiler id and thread when the segment arrives; one that never meets
 * its segment within the age limit is dropped with the waiting list.
 */
@Singleton
public class SpanIndex {
    /** Children of one segment held while they wait for it; more is not a real trace. */
    private static final int MAX_WAITING_PER_SEGMENT = 10_000;

    private record ProfilerKey(long projectId, String profilerId) {
    }

    private final Cache<ProfilerKey, List<SpanRecord>> byProfiler;
    private final Cache<String, SpanRecord> segments;
    private final Cache<String, List<SpanRecord>> waiting;
    private final long maxAgeNanos;
    private final Counter indexed;
    private final Counter withoutSegment;

    public SpanIndex(LinksConfig config, MeterRegistry meters) {
        this.maxAgeNanos = config.maxAge().toNanos();
        this.byProfiler = Caffeine.newBuilder().executor(BackgroundWork.cacheMaintenance())
                .maximumWeight(config.maxSpans())
                .weigher((ProfilerKey key, List<SpanRecord> spans) -> spans.size())
                .expireAfterWrite(config.maxAge())
                .build();
        this.segments = Caffeine.newBuilder().executor(BackgroundWork.cacheMaintenance())
                .maximumSize(Math.max(1, config.maxSpans() / 10))
                .expireAfterWrite(config.maxAge()).build();
        this.waiting = Caffeine.newBuilder().executor(BackgroundWork.cacheMaintenance())
                .maximumWeight(Math.max(1, config.maxSpans() / 10))
                .weigher((String key, List<SpanRecord> spans) -> spans.size())
                .expireAfterWrite(config.maxAge()).build();
        this.indexed = RelayMeter.SPANS_INDEXED.counter(meters);
        this.withoutSegment = RelayMeter.SPANS_UNRESOLVED.counter(meters);
        RelayMeter.SPAN_INDEX_SIZE.gauge(meters, this, index -> index.byProfiler.policy().eviction()
                .map(e -> e.weightedSize().orElse(0)).orElse(0L));
    }

    /**
     * Adds the spans of one item (or envelope); returns those that now have a profiler id, including children that
     * waited for a segment of this batch, ready to log.
     */
    public List<SpanRecord> add(long projectId, List<SpanRecord> spans) {
        List<SpanRecord> resolved = new ArrayList<>();
        synchronized (waiting) {
            for (SpanRecord span : spans) {
                if (span.profilerId() != null) {
                    resolved.add(span);
                    if (span.segment()) {
                        String key = segmentKey(projectId, span.traceId(), span.spanId());
                        segments.put(key, span);
                        List<SpanRecord> children = waiting.asMap().remove(key);
                        if (children != null) {
                            children.forEach(child -> resolved.add(child.inheritFrom(span)));
                        }
                    }
                } else if (span.segmentId() != null) {
                    String key = segmentKey(projectId, span.traceId(), span.segmentId());
                    SpanRecord segment = segments.getIfPresent(key);
                    if (segment != null) {
                        resolved.add(span.inheritFrom(segment));
                    } else {
                        waiting.asMap().compute(key, (k, children) -> {
                            List<SpanRecord> more = children == null ? new ArrayList<>() : new ArrayList<>(children);
                            if (more.size() < MAX_WAITING_PER_SEGMENT) {
                                more.add(span);
                            }
                            return more;
                        });
                    }
                } else {
                    withoutSegment.increment();
                }
            }
        }
        index(projectId, resolved);
        return resolved;
    }

    /** Adds spans that already have their profiler id (read back from the span log), one profiler at a time. */
    public void index(long projectId, List<SpanRecord> spans) {
        Map<String, List<SpanRecord>> byProfilerId = new LinkedHashMap<>();
        for (SpanRecord span : spans) {
            byProfilerId.computeIfAbsent(span.profilerId(), p -> new ArrayList<>()).add(span);
        }
        byProfilerId.forEach((profilerId, added) ->
                byProfiler.asMap().compute(new ProfilerKey(projectId, profilerId), (key, known) -> {
                    List<SpanRecord> kept = new ArrayList<>((known == null ? 0 : known.size()) + added.size());
                    Set<String> ids = new HashSet<>();
                    // a live profiler's spans age out against its newest span, not the wall clock, so that the
                    // index stays bounded while replayed or clock-skewed data still links
                    long newestEnd = added.stream().mapToLong(SpanRecord::endNanos).max().orElse(Long.MIN_VALUE);
                    if (known != null) {
                        newestEnd = Math.max(newestEnd, known.stream().mapToLong(SpanRecord::endNanos).max()
                                .orElse(Long.MIN_VALUE));
                    }
                    long oldestEnd = newestEnd - maxAgeNanos;
                    if (known != null) {
                        for (SpanRecord k : known) {
                            if (k.endNanos() >= oldestEnd && ids.add(k.traceId() + k.spanId())) {
                                kept.add(k);
                            }
                        }
                    }
                    for (SpanRecord span : added) {
                        if (ids.add(span.traceId() + span.spanId())) {
                            kept.add(span);
                            indexed.increment();
                        }
                    }
                    return List.copyOf(kept);
                }));
    }

    /** The spans of a profiler that overlap {@code [fromNanos, toNanos]}. */
    public List<SpanRecord> spans(long projectId, String profilerId, long fromNanos, long toNanos) {
        List<SpanRecord> known = byProfiler.getIfPresent(new ProfilerKey(projectId, profilerId));
        if (known == null) {
            return List.of();
        }
        List<SpanRecord> overlapping = new ArrayList<>();
        for (SpanRecord span : known) {
            if (span.startNanos() <= toNanos && span.endNanos() > fromNanos) {
                overlapping.add(span);
            }
        }
        return overlapping;
    }

    private static String segmentKey(long projectId, String traceId, String segmentSpanId) {
        return projectId + "/" + traceId + "/" + segmentSpanId;
    }
}
