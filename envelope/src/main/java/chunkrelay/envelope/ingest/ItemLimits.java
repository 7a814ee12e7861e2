package chunkrelay.envelope.ingest;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Relay's per-item-type limits of one envelope ({@code relay.limits.items}), with Relay's defaults (its
 * {@code relay-config} {@code Limits}). Sizes are decoded payload bytes; counts are items of the envelope. Profiles
 * and profile chunks keep their limit in {@link RelayLimits#maxChunkBytes()} ({@code max_profile_size}).
 * {@link EnvelopeItemLimits} says which item type takes which of them.
 *
 * @param maxEventBytes            one event-like item ({@code event}, {@code transaction}, {@code security},
 *                                 {@code raw_security}, {@code replay_event}, {@code feedback}, {@code form_data}),
 *                                 at most one of them per envelope (Relay's {@code max_event_size})
 * @param maxAttachmentBytes       one {@code attachment}, {@code unreal_report} or {@code user_report} item
 *                                 ({@code max_attachment_size})
 * @param maxAttachmentCount       how many of them an envelope may carry ({@code max_attachment_count})
 * @param maxAttachmentsBytes      all of them together ({@code max_attachments_size})
 * @param maxReplayCompressedBytes one {@code replay_recording}, and one {@code replay_video}, each at most one per
 *                                 envelope ({@code max_replay_compressed_size})
 * @param maxSessionsBytes         one {@code session} or {@code sessions} item, and all of them together
 *                                 ({@code max_sessions_size})
 * @param maxSessionCount          how many of them an envelope may carry ({@code max_session_count})
 * @param maxClientReportsBytes    one {@code client_report}, and all of them together
 *                                 ({@code max_client_reports_size})
 * @param maxClientReportsCount    how many of them an envelope may carry ({@code max_client_reports_count})
 * @param maxCheckInBytes          one {@code check_in}, at most one per envelope ({@code max_check_in_size})
 * @param maxStatsdBytes           one {@code statsd} item, at most one per envelope ({@code max_statsd_size})
 * @param maxMetricBucketsBytes    one {@code metric_buckets} item, at most one per envelope
 *                                 ({@code max_metric_buckets_size})
 * @param maxLogBytes              a log: a {@code log} item, or in a log container its average per contained log
 *                                 ({@code max_log_size})
 * @param maxTraceMetricBytes      likewise for a {@code trace_metric} ({@code max_trace_metric_size})
 * @param maxSpanBytes             likewise for a {@code span} ({@code max_span_size})
 * @param maxStandaloneSpanCount   how many {@code span} items that are not containers an envelope may carry
 *                                 ({@code max_standalone_span_count})
 * @param maxContainerBytes        all {@code log}, all {@code trace_metric} and all {@code span} items, each type
 *                                 together ({@code max_container_size}); a log, trace metric or span container
 *                                 is also at most one per envelope
 */
@ConfigurationProperties("relay.limits.items")
public record ItemLimits(
        @Bindable(defaultValue = "1048576") long maxEventBytes,
        @Bindable(defaultValue = "209715200") long maxAttachmentBytes,
        @Bindable(defaultValue = "30") int maxAttachmentCount,
        @Bindable(defaultValue = "209715200") long maxAttachmentsBytes,
        @Bindable(defaultValue = "10485760") long maxReplayCompressedBytes,
        @Bindable(defaultValue = "10485760") long maxSessionsBytes,
        @Bindable(defaultValue = "100") int maxSessionCount,
        @Bindable(defaultValue = "102400") long maxClientReportsBytes,
        @Bindable(defaultValue = "100") int maxClientReportsCount,
        @Bindable(defaultValue = "102400") long maxCheckInBytes,
        @Bindable(defaultValue = "1048576") long maxStatsdBytes,
        @Bindable(defaultValue = "1048576") long maxMetricBucketsBytes,
        @Bindable(defaultValue = "2097152") long maxLogBytes,
        @Bindable(defaultValue = "1048576") long maxTraceMetricBytes,
        @Bindable(defaultValue = "10485760") long maxSpanBytes,
        @Bindable(defaultValue = "25") int maxStandaloneSpanCount,
        @Bindable(defaultValue = "12582912") long maxContainerBytes) {
}
