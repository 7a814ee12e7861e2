package chunkrelay.envelope.health;

import chunkrelay.chunk.SampleDropRule;
import chunkrelay.envelope.telemetry.RelayMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The health counts as meters, with bounded tags ({@link SdkLabels}): rejected chunks by reason and dropped samples
 * by rule, per SDK name, major.minor version and platform. Thread-safe.
 */
final class HealthMeters {
    /** SDK tag combinations registered at most; past it, further SDKs are counted as other/other/other. */
    static final int MAX_SDK_TAGS = 200;

    private final MeterRegistry registry;
    private final Set<SdkLabels> registered = ConcurrentHashMap.newKeySet();
    private final Counter leftOut;

    HealthMeters(MeterRegistry registry) {
        this.registry = registry;
        this.leftOut = RelayMeter.HEALTH_LEFT_OUT.counter(registry);
    }

    void rejected(SdkKey sdk, String reason) {
        SdkLabels labels = labels(sdk);
        RelayMeter.SDK_CHUNKS_REJECTED.counter(registry, labels.sdk(), labels.version(), labels.platform(), reason)
                .increment();
    }

    void dropped(SdkKey sdk, SampleDropRule rule, int samples) {
        SdkLabels labels = labels(sdk);
        RelayMeter.SDK_SAMPLES_DROPPED.counter(registry, labels.sdk(), labels.version(), labels.platform(),
                rule.ruleName()).increment(samples);
    }

    void leftOut() {
        leftOut.increment();
    }

    private SdkLabels labels(SdkKey sdk) {
        SdkLabels labels = SdkLabels.of(sdk);
        if (registered.contains(labels)) {
            return labels;
        }
        synchronized (registered) {
            if (registered.size() < MAX_SDK_TAGS) {
                registered.add(labels);
                return labels;
            }
        }
        return SdkLabels.ALL_OTHER;
    }
}
