package chunkrelay.envelope.ingest;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * How much request work the relay takes on at once. Bodies are read by the event loop into the chunk memory budget,
 * so a slow client holds a connection and its buffered bytes, not a thread; only complete bodies go to the workers.
 *
 * @param workers               threads that decode and process complete envelopes; 0 (the default) means one per
 *                              available processor
 * @param workerQueue           complete envelopes waiting for a worker; when it is full new requests get 503
 *                              with {@code Retry-After} before their body is buffered
 * @param readTimeout           a client that sends nothing for this long is cut off (and counted)
 * @param chunkWorkingSetFactor memory a chunk needs while it is parsed, translated and compressed, as a multiple
 *                              of its payload; the budget admits a chunk by this working set
 * @param retryAfter            the {@code Retry-After} of a 503 for a full queue or a spent memory budget
 */
@ConfigurationProperties("relay.limits")
public record IngestCapacity(
        @Bindable(defaultValue = "0") int workers,
        @Bindable(defaultValue = "64") int workerQueue,
        @Bindable(defaultValue = "30s") Duration readTimeout,
        @Bindable(defaultValue = "2.0") double chunkWorkingSetFactor,
        @Bindable(defaultValue = "5s") Duration retryAfter) {

    public int workerThreads() {
        return workers > 0 ? workers : Runtime.getRuntime().availableProcessors();
    }
}
