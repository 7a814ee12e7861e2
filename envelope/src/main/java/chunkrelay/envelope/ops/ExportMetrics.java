package chunkrelay.envelope.ops;

import chunkrelay.translate.export.AnswerOutcome;
import chunkrelay.translate.export.DeliveryResult;
import chunkrelay.translate.export.ExportCounters;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
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
        counter(registry, "relay.export.attempts", "HTTP requests sent to the OTLP endpoint, retries included",
                ExportCounters::attempts);
        counter(registry, "relay.export.retries", "HTTP requests that followed a retryable failure",
                ExportCounters::retries);
        counter(registry, "relay.export.deliveries", "chunks delivered to the OTLP endpoint",
                ExportCounters::deliveries);
        counter(registry, "relay.export.partial.successes", "deliveries answered with a partial success",
                ExportCounters::partialSuccesses);
        counter(registry, "relay.export.rejected.profiles", "profiles the OTLP endpoint reported as rejected",
                ExportCounters::rejectedProfiles);
        counter(registry, "relay.export.queue.rejections", "chunks refused by a full forwarding queue (left for replay)",
                ExportCounters::queueRejections);
        counter(registry, "relay.export.queue.dropped", "queued chunks abandoned at shutdown (left for replay)",
                ExportCounters::queueDropped);
        Gauge.builder("relay.export.queue.depth", counters, ExportCounters::queueDepth)
                .description("chunks waiting in the forwarding queue").register(registry);
        Gauge.builder("relay.export.queue.bytes", counters, ExportCounters::queueBytes)
                .description("OTLP bytes waiting in the forwarding queue").baseUnit("bytes").register(registry);
        for (AnswerOutcome outcome : AnswerOutcome.values()) {
            for (String reason : outcome.reasons()) {
                FunctionCounter.builder("relay.export.outcomes", counters, c -> c.answers(outcome, reason))
                        .tag("outcome", outcome.tag()).tag("reason", reason)
                        .description("answers of the OTLP endpoint: delivered, retried, or refused for good (not"
                                + " sent again), by reason").register(registry);
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

    private void counter(MeterRegistry registry, String name, String description,
                         ToDoubleFunction<ExportCounters> value) {
        FunctionCounter.builder(name, counters, value).description(description).register(registry);
    }

    private void failures(MeterRegistry registry, String status, ToDoubleFunction<ExportCounters> value) {
        FunctionCounter.builder("relay.export.final.failures", counters, value).tag("status", status)
                .description("chunks whose forwarding failed for good (left for replay), by last HTTP status")
                .register(registry);
    }
}
