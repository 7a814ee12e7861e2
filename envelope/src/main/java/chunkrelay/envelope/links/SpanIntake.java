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

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the spans of an envelope's {@code transaction} and {@code span} items into the {@link SpanIndex} and the
 * {@link SpanLog}. It only reads: the items go on upstream (or are dropped) exactly as before, and nothing here can
 * refuse an envelope; a span log that cannot be written is logged and counted, and the spans still link on this
 * relay. The profiler ids each envelope's transactions name go to the {@link SessionNames} (the ingest health).
 */
@Singleton
public class SpanIntake {
    private static final Logger LOG = LoggerFactory.getLogger(SpanIntake.class);

    /** One item that may carry spans. */
    public record SpanItem(String type, byte[] payload) {
    }

    /** The envelope the items came in: when it was received and the SDK its header names (null when it does not). */
    public record Envelope(long projectId, Instant receivedAt, String sdkName, String sdkVersion) {
    }

    private final SpanIndex index;
    private final SpanLog log;
    private final LinksConfig config;
    private final Counter skipped;
    private final List<SessionNames> sessionNames;

    public SpanIntake(SpanIndex index, SpanLog log, LinksConfig config, MeterRegistry meters,
                      List<SessionNames> sessionNames) {
        this.index = index;
        this.sessionNames = List.copyOf(sessionNames);
        this.log = log;
        this.config = config;
        this.skipped = RelayMeter.SPANS_SKIPPED.counter(meters);
    }

    public void take(Envelope envelope, List<SpanItem> items) {
        long projectId = envelope.projectId();
        List<SpanRecord> spans = new ArrayList<>();
        SpanItems.Sender sender = null;
        List<SpanRecord> named = new ArrayList<>();
        for (SpanItem item : items) {
            SpanItems.Batch batch = SpanItems.read(item.type(), item.payload());
            spans.addAll(batch.spans());
            skipped.increment(batch.skipped());
            for (SpanRecord span : batch.spans()) {
                if (span.segment() && span.profilerId() != null) {
                    named.add(span);
                    sender = sender != null ? sender : batch.sdk();
                }
            }
        }
        if (spans.isEmpty()) {
            return;
        }
        if (!named.isEmpty()) {
            SpanItems.Sender said = new SpanItems.Sender(
                    sender.name() != null ? sender.name() : envelope.sdkName(),
                    sender.name() != null ? sender.version() : envelope.sdkVersion(), sender.platform());
            sessionNames.forEach(names -> names.named(projectId, envelope.receivedAt(), said, named));
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
