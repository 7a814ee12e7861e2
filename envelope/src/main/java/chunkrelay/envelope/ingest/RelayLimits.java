package chunkrelay.envelope.ingest;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * What the relay takes on ({@code relay.limits}): Relay's size limits on decoded bytes, and how much request work
 * runs at once. Bodies are read by the event loop into the chunk memory budget, so a slow client holds a connection
 * and its buffered bytes, not a thread; only complete bodies go to the workers. The {@code Retry-After} of its 503s,
 * {@code relay.limits.retry-after}, is {@link chunkrelay.envelope.errors.RetryLater}'s, since every package answers
 * 503s.
 *
 * @param maxEnvelopeBytes      a whole decoded envelope (Relay's {@code max_envelope_size})
 * @param maxChunkBytes         one profile or profile_chunk item, and all of them together (Relay's
 *                              {@code max_profile_size})
 * @param maxHeaderBytes        one envelope or item header line; Relay has no such limit, it bounds what is buffered
 * @param maxBufferedChunkBytes chunk payloads held in memory by all requests together; beyond it 503. 0 (the default)
 *                              means 70% of the maximum heap ({@link ChunkMemoryBudget}; the rest is the relay itself
 *                              and garbage not yet collected): chunks count by their working set, several times their
 *                              payload, so a heap too small for the chunks in flight answers 503, not an error
 * @param workers               threads that decode and process complete envelopes; 0 (the default) means one per
 *                              available processor
 * @param workerQueue           complete envelopes waiting for a worker; when it is full new requests get 503
 *                              with {@code Retry-After} before their body is buffered
 * @param readTimeout           a client that sends nothing for this long is cut off (and counted)
 * @param chunkWorkingSetFactor memory a chunk needs while it is parsed, translated and compressed, as a multiple
 *                              of its payload; the budget admits a chunk by this working set
 */
@ConfigurationProperties("relay.limits")
public record RelayLimits(
        @Bindable(defaultValue = "209715200") long maxEnvelopeBytes,
        @Bindable(defaultValue = "52428800") long maxChunkBytes,
        @Bindable(defaultValue = "1048576") int maxHeaderBytes,
        @Bindable(defaultValue = "0") long maxBufferedChunkBytes,
        @Bindable(defaultValue = "0") int workers,
        @Bindable(defaultValue = "64") int workerQueue,
        @Bindable(defaultValue = "30s") Duration readTimeout,
        @Bindable(defaultValue = "2.0") double chunkWorkingSetFactor) {

    public int workerThreads() {
        return workers > 0 ? workers : Runtime.getRuntime().availableProcessors();
    }
}
