package chunkrelay.envelope.links;

import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveUnavailableException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the spans of an envelope's {@code transaction} and {@code span} items into the {@link SpanIndex} and the
 * {@link SpanLog}. It only reads: the items go on upstream (or are dropped) exactly as before, and nothing here can
 * refuse an envelope; a span log that cannot be written is logged and counted, and the spans still link on this
 * relay.
 */
@Singleton
public class SpanIntake {
    private static final Logger LOG = LoggerFactory.getLogger(SpanIntake.class);

    /** One item that may carry spans. */
    public record SpanItem(String type, byte[] payload) {
    }

    private final SpanIndex index;
    private final SpanLog log;
    private final LinksConfig config;
    private final Counter skipped;

    public SpanIntake(SpanIndex index, SpanLog log, LinksConfig config, MeterRegistry meters) {
        this.index = index;
        this.log = log;
        this.config = config;
        this.skipped = RelayMeter.SPANS_SKIPPED.counter(meters);
    }

    public void take(long projectId, List<SpanItem> items) {
        List<SpanRecord> spans = new ArrayList<>();
        for (SpanItem item : items) {
            SpanItems.Batch batch = SpanItems.read(item.type(), item.payload());
            spans.addAll(batch.spans());
            skipped.increment(batch.skipped());
        }
        if (spans.isEmpty()) {
            return;
        }
        List<SpanRecord> resolved = index.add(projectId, spans);
        if (config.spanLog() && !resolved.isEmpty()) {
            try {
                log.append(projectId, resolved);
            } catch (ArchiveUnavailableException e) {
                log.countFailure();
                LOG.warn("span log not written for project {} ({} spans): {}", projectId, resolved.size(),
                        e.getMessage());
            }
        }
    }
}
