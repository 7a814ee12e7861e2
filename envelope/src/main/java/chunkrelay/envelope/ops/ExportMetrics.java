package chunkrelay.envelope.ops;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.translate.export.AnswerOutcome;
import chunkrelay.translate.export.DeliveryResult;
import chunkrelay.translate.export.ExportCounters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The OTLP forwarding counters ({@link ExportCounters}) as meters. They exist whether forwarding is on or off
 * (then they stay at zero), so dashboards and alerts need not care which. Final failures are tagged with the
 * HTTP status of the last attempt: the usual ones by number, {@code none} for no response at all, {@code other}
 * for the rest, so the tag cannot grow without bound. Every answer of the endpoint is counted by its outcome
 * ({@link AnswerOutcome}: delivered, retried, refused for good) and a reason from a fixed list, all present from
 * start-up at zero.
 */
@Singleton
public class ExportMetrics implements MeterBinder {
    private static final List<Integer> STATUSES = List.of(400, 401, 403, 404, 408, 413, 415, 429, 500, 502, 503, 504);

    private final ExportCounters counters;

    public ExportMetrics(@Nullable ExportCounters counters) {
        this.counters = counters != null ? counters : new ExportCounters();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        RelayMeter.EXPORT_ATTEMPTS.functionCounter(registry, counters, ExportCounters::attempts);
        RelayMeter.EXPORT_RETRIES.functionCounter(registry, counters, ExportCounters::retries);
        RelayMeter.EXPORT_DELIVERIES.functionCounter(registry, counters, ExportCounters::deliveries);
        RelayMeter.EXPORT_PARTIAL_SUCCESSES.functionCounter(registry, counters, ExportCounters::partialSuccesses);
        RelayMeter.EXPORT_REJECTED_PROFILES.functionCounter(registry, counters, ExportCounters::rejectedProfiles);
        RelayMeter.EXPORT_QUEUE_REJECTIONS.functionCounter(registry, counters, ExportCounters::queueRejections);
        RelayMeter.EXPORT_QUEUE_DROPPED.functionCounter(registry, counters, ExportCounters::queueDropped);
        RelayMeter.EXPORT_QUEUE_DEPTH.gauge(registry, counters, ExportCounters::queueDepth);
        RelayMeter.EXPORT_QUEUE_BYTES.gauge(registry, counters, ExportCounters::queueBytes);
        for (AnswerOutcome outcome : AnswerOutcome.values()) {
            for (String reason : outcome.reasons()) {
                RelayMeter.EXPORT_OUTCOMES.functionCounter(registry, counters, c -> c.answers(outcome, reason),
                        outcome.tag(), reason);
            }
        }
        for (int status : STATUSES) {
            failures(registry, Integer.toString(status), c -> c.finalFailuresByStatus().getOrDefault(status, 0L));
        }
        failures(registry, "none", c -> c.finalFailuresByStatus().getOrDefault(DeliveryResult.NO_STATUS, 0L));
        failures(registry, "other", c -> {
            long other = 0;
            for (Map.Entry<Integer, Long> e : c.finalFailuresByStatus().entrySet()) {
                if (e.getKey() != DeliveryResult.NO_STATUS && !STATUSES.contains(e.getKey())) {
                    other += e.getValue();
                }
            }
            return other;
        });
    }

    private void failures(MeterRegistry registry, String status, ToDoubleFunction<ExportCounters> value) {
        RelayMeter.EXPORT_FINAL_FAILURES.functionCounter(registry, counters, value, status);
    }
}
