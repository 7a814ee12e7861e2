package chunkrelay.envelope.retention;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.RetentionSweep;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What each project keeps in the archive, as of the last sweep: {@link RelayMeter#ARCHIVE_PROJECT_BYTES} and
 * {@link RelayMeter#ARCHIVE_PROJECT_OBJECTS}, so that growth shows before a full disk or a large bill. A project
 * that keeps nothing, or a replica that no longer sweeps, drops its gauges rather than report stale sizes.
 */
final class ArchiveSizes {
    private final MeterRegistry meters;
    private final Map<String, AtomicReference<RetentionSweep.Size>> byProject = new ConcurrentHashMap<>();
    private final Map<String, List<Gauge>> gauges = new HashMap<>();

    ArchiveSizes(MeterRegistry meters) {
        this.meters = meters;
    }

    synchronized void publish(Map<String, RetentionSweep.Size> kept) {
        for (String gone : List.copyOf(byProject.keySet())) {
            if (!kept.containsKey(gone)) {
                remove(gone);
            }
        }
        kept.forEach((project, size) -> byProject.computeIfAbsent(project, this::register).set(size));
    }

    synchronized void clear() {
        List.copyOf(byProject.keySet()).forEach(this::remove);
    }

    private AtomicReference<RetentionSweep.Size> register(String project) {
        AtomicReference<RetentionSweep.Size> size = new AtomicReference<>(new RetentionSweep.Size(0, 0));
        gauges.put(project, List.of(
                RelayMeter.ARCHIVE_PROJECT_BYTES.gauge(meters, size, s -> s.get().bytes(), project),
                RelayMeter.ARCHIVE_PROJECT_OBJECTS.gauge(meters, size, s -> s.get().objects(), project)));
        return size;
    }

    private void remove(String project) {
        byProject.remove(project);
        gauges.remove(project).forEach(meters::remove);
    }
}
