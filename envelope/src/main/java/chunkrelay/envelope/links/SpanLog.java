package chunkrelay.envelope.links;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ObjectStore;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The span log in the bucket: every span with its profiler id, appended as one small object per envelope and
 * profiler under {@code spans/{project}/{profiler}/{yyyy-mm-dd}/{HHmm}/{replica}/{first start ms}-{last end
 * ms}-{random}.jsonl}, filed by the minute (UTC) in which its last span ends and by the process that wrote it. So
 * that a replica that did not see a span, a restarted relay and {@code replay} link alike.
 *
 * <p>Reading is cheap where it matters: the spans a chunk can link to end after its first sample and before its
 * derivation (they arrived within the link window), so a reader looks only at the minute folders from the chunk's
 * first sample to its last sample plus the window; and it skips the folder of this process (their spans are in its
 * own index), so a single relay lists one folder level a minute and reads nothing. Objects are never rewritten.
 */
@Singleton
public class SpanLog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** Spans can reach the relay a little after the window: SDKs batch and retry. */
    private static final Duration ARRIVAL_SLACK = Duration.ofMinutes(2);

    private final ObjectStore store;
    private final MeterRegistry meters;
    private final Duration window;
    private final Clock clock;
    /** Names this process's objects, which its own index already holds. */
    private final String replica = UUID.randomUUID().toString().substring(0, 8);

    public SpanLog(ObjectStore store, LinksConfig config, MeterRegistry meters, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.meters = meters;
        this.window = config.window();
        RelayMeter.SPAN_LOG_WRITES.counter(meters, "stored");
        RelayMeter.SPAN_LOG_WRITES.counter(meters, "failed");
    }

    /**
     * Appends spans (all with a profiler id); one object per profiler.
     *
     * @throws chunkrelay.storage.ArchiveUnavailableException when the bucket cannot be written
     */
    public void append(long projectId, List<SpanRecord> spans) {
        Map<String, List<SpanRecord>> byProfiler = new LinkedHashMap<>();
        for (SpanRecord span : spans) {
            byProfiler.computeIfAbsent(span.profilerId(), k -> new ArrayList<>()).add(span);
        }
        for (Map.Entry<String, List<SpanRecord>> entry : byProfiler.entrySet()) {
            List<SpanRecord> group = entry.getValue();
            long first = group.stream().mapToLong(SpanRecord::startNanos).min().orElseThrow();
            long last = group.stream().mapToLong(SpanRecord::endNanos).max().orElseThrow();
            String key = ArchiveLayout.SPANS + ProjectIds.format(projectId) + "/" + entry.getKey() + "/" + TimeBuckets.minutePath(last) + "/" + replica + "/"
                    + first / NANOS_PER_MILLI + "-" + (last / NANOS_PER_MILLI + 1) + "-" + UUID.randomUUID() + ".jsonl";
            StringBuilder lines = new StringBuilder();
            group.forEach(span -> lines.append(line(span)).append('\n'));
            store.storeObject(key, lines.toString().getBytes(StandardCharsets.UTF_8));
            RelayMeter.SPAN_LOG_WRITES.counter(meters, "stored").increment();
        }
    }

    void countFailure() {
        RelayMeter.SPAN_LOG_WRITES.counter(meters, "failed").increment();
    }

    /**
     * The spans other processes logged for a profiler that overlap {@code [fromNanos, toNanos]}, a chunk's samples:
     * from the minute folders in which such a span can end, filtered by the objects' names first.
     */
    public List<SpanRecord> read(long projectId, String profilerId, long fromNanos, long toNanos) {
        List<SpanRecord> spans = new ArrayList<>();
        // no span can end in a minute that has not begun (the SDK's clock against ours, give or take the slack)
        long now = clock.millis() * 1_000_000L + ARRIVAL_SLACK.toNanos();
        long lastEnd = Math.min(toNanos + window.plus(ARRIVAL_SLACK).toNanos(), Math.max(now, toNanos));
        // one listing of the days' minute folders first: a profiler without spans costs one request a day
        Set<String> present = new HashSet<>();
        for (LocalDate day = TimeBuckets.dayOf(fromNanos); !day.isAfter(TimeBuckets.dayOf(lastEnd));
             day = day.plusDays(1)) {
            String dayFolder = ArchiveLayout.SPANS + ProjectIds.format(projectId) + "/" + profilerId + "/" + day + "/";
            store.listFolders(dayFolder).forEach(minute -> present.add(dayFolder + minute + "/"));
        }
        for (long minute = TimeBuckets.minuteOf(fromNanos); minute <= lastEnd; minute += TimeBuckets.MINUTE_NANOS) {
            String minuteFolder = ArchiveLayout.SPANS + ProjectIds.format(projectId) + "/" + profilerId + "/" + TimeBuckets.minutePath(minute)
                    + "/";
            if (!present.contains(minuteFolder)) {
                continue;
            }
            for (String writer : store.listFolders(minuteFolder)) {
                if (writer.equals(replica)) {
                    continue;
                }
                String folder = minuteFolder + writer + "/";
                for (String key : store.listObjects(folder)) {
                    String[] name = key.substring(folder.length()).split("-", 3);
                    if (name.length < 3 || Long.parseLong(name[0]) * NANOS_PER_MILLI > toNanos
                            || Long.parseLong(name[1]) * NANOS_PER_MILLI < fromNanos) {
                        continue;
                    }
                    store.readObject(key).ifPresent(body -> parse(body, spans, fromNanos, toNanos));
                }
            }
        }
        return spans;
    }

    private static void parse(byte[] body, List<SpanRecord> into, long fromNanos, long toNanos) {
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode json = JSON.readTree(line);
                SpanRecord span = new SpanRecord(json.path("trace_id").asText(), json.path("span_id").asText(),
                        text(json, "parent_span_id"), text(json, "segment_id"), json.path("is_segment").asBoolean(),
                        json.path("profiler_id").asText(), text(json, "thread_id"), json.path("start_ns").asLong(),
                        json.path("end_ns").asLong());
                if (span.startNanos() <= toNanos && span.endNanos() > fromNanos) {
                    into.add(span);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("span log line unreadable: " + line, e);
            }
        }
    }

    private static String line(SpanRecord span) {
        ObjectNode json = JSON.createObjectNode()
                .put("trace_id", span.traceId())
                .put("span_id", span.spanId())
                .put("parent_span_id", span.parentSpanId())
                .put("segment_id", span.segmentId())
                .put("is_segment", span.segment())
                .put("profiler_id", span.profilerId())
                .put("thread_id", span.threadId())
                .put("start_ns", span.startNanos())
                .put("end_ns", span.endNanos());
        return json.toString();
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.path(field);
        return value.isTextual() ? value.asText() : null;
    }
}
