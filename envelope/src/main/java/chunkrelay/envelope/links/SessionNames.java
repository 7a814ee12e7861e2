package chunkrelay.envelope.links;

import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.chunk.spans.SpanRecord;

import java.time.Instant;
import java.util.List;

/**
 * Told, for each envelope, of the profiler sessions its transactions name: so that whoever counts sessions (the
 * ingest health) sees them without the span index knowing it. Called on the envelope's worker thread; must not block.
 */
public interface SessionNames {
    /**
     * @param projectId    the envelope's project
     * @param receivedAt   when the relay received the envelope
     * @param sender       the SDK as the items and, where they do not say, the envelope header name it
     * @param transactions the transactions (a transaction item, or a span item's segment) naming a profiler id
     */
    void named(long projectId, Instant receivedAt, SpanItems.Sender sender, List<SpanRecord> transactions);
}
