package chunkrelay.chunk.spans;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the spans of a {@code transaction} item (its root span from {@code contexts.trace} and its {@code spans}),
 * of a {@code span} item in the v2 container ({@code {"version":2,"items":[...]}}) and of a single v1 span.
 *
 * <p>Where each SDK puts the profiler id and thread (trace-links research note, section 1): a transaction's
 * {@code contexts.profile.profiler_id} (or {@code contexts.trace.data.profiler_id}) and
 * {@code contexts.trace.data["thread.id"]}; a child's {@code data.profiler_id} and {@code data["thread.id"]}, which
 * it inherits from the transaction when absent; a v2 span's attributes {@code sentry.profiler_id} and
 * {@code thread.id} (JavaScript sends the profiler id on the segment only, so its children are returned with none
 * and resolved later against their segment). Times are float Unix seconds or RFC 3339 strings.
 *
 * <p>Garbage is skipped quietly, span by span, and counted: a malformed id, an end before the start, a span longer
 * than {@link #MAX_SPAN_NANOS}. A document that is not JSON, too large or too deep gives no spans at all. Never
 * throws for any input.
 */
public final class SpanItems {
    /** Relay's limit for an event, and far more than any transaction or span batch the SDKs send. */
    public static final int MAX_ITEM_BYTES = 1 << 20;
    /** A day: spans that claim to last longer are clock errors, and would link a whole day of samples. */
    static final long MAX_SPAN_NANOS = 86_400L * 1_000_000_000L;

    private static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build())
            // times are read as decimals: a double of Unix seconds keeps only about a microsecond
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private SpanItems() {
    }

    /**
     * The spans of one item, with the number of spans skipped as malformed.
     *
     * @param spans   in document order; a transaction's root span first
     * @param skipped spans (or whole documents) left out
     * @param sdk     who sent a transaction: its {@code sdk.name}, {@code sdk.version} and {@code platform}, each
     *                null when not sent (and all null for span items, which do not say)
     */
    public record Batch(List<SpanRecord> spans, int skipped, Sender sdk) {
        static Batch unreadable() {
            return new Batch(List.of(), 1, Sender.UNSAID);
        }
    }

    /** The SDK name, version and platform an item names, each null when it does not. */
    public record Sender(String name, String version, String platform) {
        public static final Sender UNSAID = new Sender(null, null, null);
    }

    /** Whether an item of this type can carry spans. */
    public static boolean carriesSpans(String itemType) {
        return "transaction".equals(itemType) || "span".equals(itemType);
    }

    public static Batch read(String itemType, byte[] payload) {
        if (payload == null || payload.length == 0 || payload.length > MAX_ITEM_BYTES) {
            return Batch.unreadable();
        }
        JsonNode document;
        try {
            document = JSON.readTree(payload);
        } catch (IOException e) {
            return Batch.unreadable();
        }
        if (document == null || !document.isObject()) {
            return Batch.unreadable();
        }
        try {
            return readDocument(itemType, document);
        } catch (RuntimeException e) {
            // a shape no rule expected: the item still goes on, it only links nothing
            return Batch.unreadable();
        }
    }

    private static Batch readDocument(String itemType, JsonNode document) {
        Reader reader = new Reader();
        if ("transaction".equals(itemType)) {
            reader.transaction(document);
        } else if (document.has("items")) {
            for (JsonNode span : document.path("items")) {
                reader.v2Span(span);
            }
        } else {
            reader.v1Span(document);
        }
        Sender sender = "transaction".equals(itemType) ? new Sender(text(document.path("sdk").path("name")),
                text(document.path("sdk").path("version")), text(document.path("platform"))) : Sender.UNSAID;
        return new Batch(List.copyOf(reader.spans), reader.skipped, sender);
    }

    private static String text(JsonNode node) {
        return node.isTextual() ? node.asText() : null;
    }

    private static final class Reader {
        private final List<SpanRecord> spans = new ArrayList<>();
        private int skipped;

        void transaction(JsonNode event) {
            JsonNode trace = event.path("contexts").path("trace");
            JsonNode traceData = trace.path("data");
            String profilerId = profilerId(event.path("contexts").path("profile").path("profiler_id"));
            if (profilerId == null) {
                profilerId = profilerId(traceData.path("profiler_id"));
            }
            String traceId = hexId(trace.path("trace_id"), 32);
            String rootId = hexId(trace.path("span_id"), 16);
            SpanRecord root = span(traceId, rootId, optionalHexId(trace.path("parent_span_id")), rootId, true,
                    profilerId, threadId(traceData.path("thread.id")), event.path("start_timestamp"),
                    event.path("timestamp"));
            if (root == null) {
                skipped += 1 + event.path("spans").size();
                return;
            }
            spans.add(root);
            for (JsonNode child : event.path("spans")) {
                JsonNode data = child.path("data");
                JsonNode childTrace = child.path("trace_id");
                SpanRecord span = span(childTrace.isMissingNode() ? traceId : hexId(childTrace, 32),
                        hexId(child.path("span_id"), 16), optionalHexId(child.path("parent_span_id")), rootId, false,
                        profilerId(data.path("profiler_id")), threadId(data.path("thread.id")),
                        child.path("start_timestamp"), child.path("timestamp"));
                if (span != null) {
                    spans.add(span.inheritFrom(root));
                }
            }
        }

        void v2Span(JsonNode span) {
            JsonNode attributes = span.path("attributes");
            String spanId = hexId(span.path("span_id"), 16);
            boolean segment = span.path("is_segment").asBoolean(false);
            String segmentId = segment ? spanId : optionalHexId(attributeValue(attributes, "sentry.segment.id"));
            add(span(hexId(span.path("trace_id"), 32), spanId, optionalHexId(span.path("parent_span_id")),
                    segmentId, segment, profilerId(attributeValue(attributes, "sentry.profiler_id")),
                    threadId(attributeValue(attributes, "thread.id")), span.path("start_timestamp"),
                    span.path("end_timestamp")));
        }

        void v1Span(JsonNode span) {
            JsonNode data = span.path("data");
            String spanId = hexId(span.path("span_id"), 16);
            boolean segment = span.path("is_segment").asBoolean(false);
            String segmentId = segment ? spanId : optionalHexId(span.path("segment_id"));
            add(span(hexId(span.path("trace_id"), 32), spanId, optionalHexId(span.path("parent_span_id")),
                    segmentId, segment, profilerId(data.path("profiler_id")), threadId(data.path("thread.id")),
                    span.path("start_timestamp"), span.path("timestamp")));
        }

        private void add(SpanRecord span) {
            if (span != null) {
                spans.add(span);
            }
        }

        /** A span, or null (counted) when its ids or times are unusable. */
        private SpanRecord span(String traceId, String spanId, String parentSpanId, String segmentId,
                                boolean segment, String profilerId, String threadId, JsonNode start, JsonNode end) {
            long startNanos = nanos(start);
            long endNanos = nanos(end);
            if (traceId == null || spanId == null || startNanos == Long.MIN_VALUE || endNanos == Long.MIN_VALUE
                    || endNanos < startNanos || endNanos - startNanos > MAX_SPAN_NANOS) {
                skipped++;
                return null;
            }
            return new SpanRecord(traceId, spanId, parentSpanId, segmentId, segment, profilerId, threadId,
                    startNanos, endNanos);
        }
    }

    /** A v2 attribute's value: {@code {"value": ..., "type": ...}}, or a bare value. */
    private static JsonNode attributeValue(JsonNode attributes, String name) {
        JsonNode attribute = attributes.path(name);
        return attribute.isObject() ? attribute.path("value") : attribute;
    }

    /** Lowercase hex of exactly {@code digits} digits (dashes of a UUID dropped), or null. */
    static String hexId(JsonNode node, int digits) {
        if (!node.isTextual()) {
            return null;
        }
        String text = node.asText().replace("-", "").toLowerCase(Locale.ROOT);
        if (text.length() != digits) {
            return null;
        }
        for (int i = 0; i < digits; i++) {
            char c = text.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return null;
            }
        }
        // all zeros is the "no id" value of both Sentry and OTLP
        return text.chars().allMatch(c -> c == '0') ? null : text;
    }

    private static String optionalHexId(JsonNode node) {
        return node.isMissingNode() || node.isNull() ? null : hexId(node, 16);
    }

    private static String profilerId(JsonNode node) {
        return hexId(node, 32);
    }

    private static String threadId(JsonNode node) {
        if (node.isIntegralNumber()) {
            return node.bigIntegerValue().toString();
        }
        return node.isTextual() ? ThreadIds.canonical(node.asText()) : null;
    }

    /** Float Unix seconds (exact, read as decimal) or an RFC 3339 string, to nanoseconds; MIN_VALUE if neither. */
    static long nanos(JsonNode node) {
        try {
            if (node.isNumber()) {
                BigDecimal seconds = node.decimalValue();
                if (seconds.signum() <= 0 || seconds.compareTo(BigDecimal.valueOf(9_000_000_000L)) > 0) {
                    return Long.MIN_VALUE;
                }
                return seconds.movePointRight(9).longValue();
            }
            if (node.isTextual()) {
                Instant instant = OffsetDateTime.parse(node.asText()).toInstant();
                return Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L) + instant.getNano();
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            return Long.MIN_VALUE;
        }
        return Long.MIN_VALUE;
    }
}
