package chunkrelay.envelope.links;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.storage.ChunkArchive;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The span log in the bucket: every span with its profiler id, appended as one small object per envelope and
 * (profiler, day) under {@code spans/{project}/{profiler}/{yyyy-mm-dd of the span start}/{first start ms}-{last end
 * ms}-{random}.jsonl}, so that a replica that did not see a span, a restarted relay and {@code replay} link alike.
 * Objects are never rewritten; the names' time ranges let a reader fetch only what overlaps a chunk.
 */
@Singleton
public class SpanLog {
    static final String PREFIX = "spans/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final ChunkArchive archive;
    private final MeterRegistry meters;

    public SpanLog(ChunkArchive archive, MeterRegistry meters) {
        this.archive = archive;
        this.meters = meters;
        meters.counter("relay.span.log.writes", "outcome", "stored");
        meters.counter("relay.span.log.writes", "outcome", "failed");
    }

    /**
     * Appends spans (all with a profiler id); one object per (profiler, day).
     *
     * @throws chunkrelay.storage.ArchiveUnavailableException when the bucket cannot be written
     */
    public void append(long projectId, List<SpanRecord> spans) {
        Map<String, List<SpanRecord>> byObject = new LinkedHashMap<>();
        for (SpanRecord span : spans) {
            byObject.computeIfAbsent(span.profilerId() + "/" + day(span.startNanos()), k -> new ArrayList<>())
                    .add(span);
        }
        for (Map.Entry<String, List<SpanRecord>> entry : byObject.entrySet()) {
            List<SpanRecord> group = entry.getValue();
            long first = group.stream().mapToLong(SpanRecord::startNanos).min().orElseThrow() / NANOS_PER_MILLI;
            long last = group.stream().mapToLong(SpanRecord::endNanos).max().orElseThrow() / NANOS_PER_MILLI + 1;
            String key = PREFIX + projectId + "/" + entry.getKey() + "/" + first + "-" + last + "-"
                    + UUID.randomUUID() + ".jsonl";
            StringBuilder lines = new StringBuilder();
            group.forEach(span -> lines.append(line(span)).append('\n'));
            archive.storeObject(key, lines.toString().getBytes(StandardCharsets.UTF_8));
            meters.counter("relay.span.log.writes", "outcome", "stored").increment();
        }
    }

    void countFailure() {
        meters.counter("relay.span.log.writes", "outcome", "failed").increment();
    }

    /**
     * The logged spans of a profiler that overlap {@code [fromNanos, toNanos]}: objects of the days from the one
     * before {@code fromNanos} (spans that started then) to that of {@code toNanos}, filtered by their names first.
     */
    public List<SpanRecord> read(long projectId, String profilerId, long fromNanos, long toNanos) {
        List<SpanRecord> spans = new ArrayList<>();
        for (LocalDate day = day(fromNanos).minusDays(1); !day.isAfter(day(toNanos)); day = day.plusDays(1)) {
            String folder = PREFIX + projectId + "/" + profilerId + "/" + day + "/";
            for (String key : archive.listObjects(folder)) {
                String[] range = key.substring(folder.length()).split("-", 3);
                if (range.length < 3 || Long.parseLong(range[0]) * NANOS_PER_MILLI > toNanos
                        || Long.parseLong(range[1]) * NANOS_PER_MILLI < fromNanos) {
                    continue;
                }
                archive.readObject(key).ifPresent(body -> parse(body, spans, fromNanos, toNanos));
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

    private static LocalDate day(long nanos) {
        return LocalDate.ofInstant(Instant.ofEpochSecond(0, nanos), ZoneOffset.UTC);
    }
}
