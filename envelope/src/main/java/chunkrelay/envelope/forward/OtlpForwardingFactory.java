package chunkrelay.envelope.forward;

import chunkrelay.retry.Sleeper;
import chunkrelay.translate.export.ExportCounters;
import chunkrelay.translate.export.ForwardingQueue;
import chunkrelay.translate.export.OtlpHttpExporter;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.time.Clock;

/**
 * The OTLP/HTTP exporter and its forwarding queue, present when {@code relay.otlp.endpoint} is set. The queue is
 * closed at shutdown with {@code relay.otlp.drain-timeout}: what it cannot deliver by then is marked for replay.
 * It depends on the archive (through its listener), so it is closed before the archive is.
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
    OtlpHttpExporter otlpHttpExporter(OtlpConfig config, ExportCounters counters, Clock clock) {
        return new OtlpHttpExporter(config.settings(), counters, clock, Sleeper.on(clock));
    }

    @Singleton
    @Bean(preDestroy = "close")
    @Requires(property = "relay.otlp.endpoint")
    ForwardingQueue forwardingQueue(OtlpHttpExporter exporter, DeliveryMarkers markers) {
        return new ForwardingQueue(exporter, markers);
    }
}
