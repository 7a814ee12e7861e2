package chunkrelay.envelope.pipeline;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Size limits on decoded bytes, Relay's defaults.
 *
 * @param maxEnvelopeBytes a whole decoded envelope (Relay's {@code max_envelope_size})
 * @param maxChunkBytes    one profile or profile_chunk item, and all of them together (Relay's {@code max_profile_size})
 * @param maxHeaderBytes   one envelope or item header line; Relay has no such limit, it bounds what is buffered
 * @param maxBufferedChunkBytes chunk payloads held in memory by all requests together; beyond it 503. 0 (the default)
 *                              means 70% of the maximum heap ({@code ChunkMemoryBudget}; the rest is the relay
 *                              itself and garbage not yet collected): chunks count by their working set, several
 *                              times their payload, so a heap too small for the chunks in flight answers 503, not
 *                              an error
 */
@ConfigurationProperties("relay.limits")
public record RelayLimits(
        @Bindable(defaultValue = "209715200") long maxEnvelopeBytes,
        @Bindable(defaultValue = "52428800") long maxChunkBytes,
        @Bindable(defaultValue = "1048576") int maxHeaderBytes,
        @Bindable(defaultValue = "0") long maxBufferedChunkBytes) {
}
