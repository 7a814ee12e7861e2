package chunkrelay.envelope.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Relay's limits per item type of one envelope, item by item in envelope order, as Relay's
 * {@code check_envelope_size_limits} ({@code relay-server/src/utils/sizes.rs}) applies them: each limited type has
 * a largest item, a number of items and a total size, some shared by several types. The first item over one names
 * the envelope's 413, and the whole envelope is refused. Item types Relay does not know have no limit (it forwards
 * them as they are). One instance per envelope; it holds a few counters, never a payload.
 */
final class EnvelopeItemLimits {
    /** Content types of Relay's item containers, whose item holds {@code item_count} logs, spans or metrics. */
    private static final Set<String> CONTAINER_CONTENT_TYPES = Set.of("application/vnd.sentry.items.log+json",
            "application/vnd.sentry.items.span.v2+json", "application/vnd.sentry.items.trace-metric+json");
    /** Relay names a refused item by its {@code attachment_type} when it has one (its {@code DiscardItemType}). */
    private static final Map<String, String> ATTACHMENT_TYPE_NAMES = Map.of(
            "event.attachment", "attachment:attachment",
            "event.minidump", "attachment:minidump",
            "event.applecrashreport", "attachment:apple_crash_report",
            "event.payload", "attachment:event_payload",
            "playstation.prosperodump", "attachment:prosperodump",
            "nswitch.dying_message", "attachment:nnswitch_dying_message",
            "event.breadcrumbs", "attachment:breadcrumbs",
            "event.view_hierarchy", "attachment:view_hierarchy",
            "unreal.context", "attachment:unreal_context",
            "unreal.logs", "attachment:unreal_logs");

    private final Remaining event;
    private final Remaining attachment;
    private final Remaining replayRecording;
    private final Remaining replayVideo;
    private final Remaining session;
    private final Remaining clientReport;
    private final Remaining profile;
    private final Remaining checkIn;
    private final Remaining statsd;
    private final Remaining metricBuckets;
    private final Remaining log;
    private final Remaining traceMetric;
    private final Remaining spanContainer;
    private final Remaining standaloneSpan;
    private String refusedType;

    /**
     * @param limits          the per-type limits
     * @param maxProfileBytes one profile or profile chunk, at most one of them, which is Relay's
     *                        {@code max_profile_size}
     */
    EnvelopeItemLimits(ItemLimits limits, long maxProfileBytes) {
        // event-like, attachment and replay items are never containers: Relay ignores their item_count
        event = new Remaining(limits.maxEventBytes(), 1, limits.maxEventBytes(), false);
        attachment = new Remaining(limits.maxAttachmentBytes(), limits.maxAttachmentCount(),
                limits.maxAttachmentsBytes(), false);
        replayRecording = new Remaining(limits.maxReplayCompressedBytes(), 1, limits.maxReplayCompressedBytes(),
                false);
        replayVideo = new Remaining(limits.maxReplayCompressedBytes(), 1, limits.maxReplayCompressedBytes(), false);
        session = new Remaining(limits.maxSessionsBytes(), limits.maxSessionCount(), limits.maxSessionsBytes(), true);
        clientReport = new Remaining(limits.maxClientReportsBytes(), limits.maxClientReportsCount(),
                limits.maxClientReportsBytes(), true);
        profile = new Remaining(maxProfileBytes, 1, maxProfileBytes, true);
        checkIn = new Remaining(limits.maxCheckInBytes(), 1, limits.maxCheckInBytes(), true);
        statsd = new Remaining(limits.maxStatsdBytes(), 1, limits.maxStatsdBytes(), true);
        metricBuckets = new Remaining(limits.maxMetricBucketsBytes(), 1, limits.maxMetricBucketsBytes(), true);
        // logs, trace metrics and span containers carry many of their kind: the item limit is per contained one
        log = new Remaining(limits.maxLogBytes(), 1, limits.maxContainerBytes(), true);
        traceMetric = new Remaining(limits.maxTraceMetricBytes(), 1, limits.maxContainerBytes(), true);
        spanContainer = new Remaining(limits.maxSpanBytes(), 1, limits.maxContainerBytes(), true);
        standaloneSpan = new Remaining(limits.maxSpanBytes(), limits.maxStandaloneSpanCount(),
                limits.maxContainerBytes(), true);
    }

    /**
     * Counts an item of {@code size} payload bytes against its type's limits; false when it is over one, and for
     * every item after that, since the envelope is refused whole.
     */
    boolean admit(ItemHeader item, long size) {
        if (refusedType != null) {
            return false;
        }
        Remaining limit = limitOf(item);
        if (limit == null || limit.take(item, size)) {
            return true;
        }
        refusedType = refusedName(item);
        return false;
    }

    /** Whether an item was over its limits. */
    boolean refused() {
        return refusedType != null;
    }

    /** The name of the first item over its limits, as Relay's 413 gives it; null when none was. */
    String refusedType() {
        return refusedType;
    }

    private Remaining limitOf(ItemHeader item) {
        return switch (item.type()) {
            case "event", "transaction", "security", "replay_event", "raw_security", "feedback", "form_data" -> event;
            case "attachment", "unreal_report", "user_report" -> attachment;
            case "replay_recording" -> replayRecording;
            case "replay_video" -> replayVideo;
            case "session", "sessions" -> session;
            case "client_report" -> clientReport;
            case "profile", "profile_chunk", "profile_chunk_ui" -> profile;
            case "check_in" -> checkIn;
            case "statsd" -> statsd;
            case "metric_buckets" -> metricBuckets;
            case "log" -> log;
            case "trace_metric" -> traceMetric;
            case "span" -> isContainer(item) ? spanContainer : standaloneSpan;
            default -> null;
        };
    }

    private static boolean isContainer(ItemHeader item) {
        return item.contentType() != null
                && CONTAINER_CONTENT_TYPES.contains(item.contentType().toLowerCase(Locale.ROOT));
    }

    /** Relay's name of a refused item: its attachment type when it has one, else its type. */
    private static String refusedName(ItemHeader item) {
        JsonNode attachmentType = item.json().get("attachment_type");
        if (attachmentType != null && attachmentType.isTextual()) {
            String name = ATTACHMENT_TYPE_NAMES.get(attachmentType.textValue());
            if (name != null) {
                return name;
            }
        }
        return switch (item.type()) {
            case "attachment" -> "attachment:attachment";
            case "feedback" -> "user_report_v2";
            case "profile_chunk_ui" -> "profile_chunk";
            default -> item.type();
        };
    }

    /** What one limit has left in this envelope. */
    private static final class Remaining {
        private final long maxItemBytes;
        private final boolean countsContained;
        private long count;
        private long bytes;

        Remaining(long maxItemBytes, long count, long bytes, boolean countsContained) {
            this.maxItemBytes = maxItemBytes;
            this.count = count;
            this.bytes = bytes;
            this.countsContained = countsContained;
        }

        /** Relay's order: the item's size, then one more item, then the total. */
        boolean take(ItemHeader item, long size) {
            if (size / contained(item) > maxItemBytes || count == 0 || size > bytes) {
                return false;
            }
            count--;
            bytes -= size;
            return true;
        }

        /** A container holds {@code item_count} items (at least one); any other item is one. */
        private long contained(ItemHeader item) {
            if (!countsContained || !isContainer(item)) {
                return 1;
            }
            JsonNode itemCount = item.json().get("item_count");
            return itemCount == null || itemCount.isNull() ? 1 : Math.max(1, itemCount.longValue());
        }
    }
}
