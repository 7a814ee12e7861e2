package chunkrelay.envelope.forward;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.retry.Sleeper;
import chunkrelay.translate.export.ExportCounters;
import chunkrelay.translate.export.ForwardingQueue;
import chunkrelay.translate.export.OtlpExportSettings;
import chunkrelay.translate.export.OtlpHttpExporter;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;

/**
 * The OTLP/HTTP exporter and its forwarding queue, present when {@code relay.otlp.endpoint} is set: one HTTP client
 * to the collector, its threads ({@code otlp-http-N}) made and stopped by {@link BackgroundWork}. The queue is
 * closed at shutdown after derivation has handed it the chunks still waiting ({@link BackgroundWork.Stage}), within
 * {@code relay.otlp.drain-timeout} and what is left of the shutdown budget: what it cannot deliver by then is marked
 * for replay.
 */
@Factory
public class OtlpForwardingFactory {

    /** Always present (zero while forwarding is off), so metrics can be bound unconditionally. */
    @Singleton
    ExportCounters exportCounters() {
        return new ExportCounters();
    }

    @Singleton
    @Requires(property = "relay.otlp.endpoint")
    OtlpHttpExporter otlpHttpExporter(OtlpConfig config, ExportCounters counters, Clock clock,
                                      BackgroundWork work) {
        OtlpExportSettings settings = config.settings();
        return new OtlpHttpExporter(settings, counters, clock, Sleeper.on(clock),
                work.clientThreads("otlp-http", Math.max(2, settings.workers())));
    }

    @Singleton
    @Requires(property = "relay.otlp.endpoint")
    ForwardingQueue forwardingQueue(OtlpHttpExporter exporter, DeliveryMarkers markers, BackgroundWork work) {
        ForwardingQueue queue = new ForwardingQueue(exporter, markers, work.threads("otlp-forward"));
        Duration drain = exporter.settings().drainTimeout();
        work.atStop(BackgroundWork.Stage.FORWARDING, "OTLP forwarding queue",
                left -> queue.close(drain.compareTo(left) < 0 ? drain : left));
        return queue;
    }
}
