package chunkrelay.envelope.derivation;

import java.time.Instant;

/**
 * Who sent a chunk and when the relay received it, as the chunk path saw it: what its samples' link outcome is
 * counted under when it is derived ({@link LinkedSampleCounts}).
 *
 * @param receivedAt when the relay received it
 * @param sdk        the SDK's name ({@code client_sdk} of the chunk, else {@code sdk} of the envelope), or null
 * @param sdkVersion its version, likewise
 * @param platform   the chunk's platform
 */
public record ChunkReceipt(Instant receivedAt, String sdk, String sdkVersion, String platform) {
}
