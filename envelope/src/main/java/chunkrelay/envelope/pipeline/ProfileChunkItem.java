package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ChunkItemHeader;

import java.time.Instant;

/**
 * One profile_chunk item of an accepted envelope.
 *
 * @param projectId  the project it was sent to
 * @param publicKey  the public key it was sent with (flags removed)
 * @param itemType   {@code profile_chunk} or its alias {@code profile_chunk_ui}
 * @param header     what the item header says (platform, content_type, meta_length)
 * @param payload    the payload bytes exactly as sent (decoded from the request's Content-Encoding)
 * @param envelope   what the envelope header says
 * @param receivedAt when the relay received the request
 */
public record ProfileChunkItem(long projectId, String publicKey, String itemType, ChunkItemHeader header,
                               byte[] payload, EnvelopeInfo envelope, Instant receivedAt) {

    /**
     * The envelope header's fields that matter downstream.
     *
     * @param eventId    {@code event_id} as 32 lowercase hex digits, or null
     * @param sentAt     {@code sent_at}, or null
     * @param sdkName    {@code sdk.name}, or null
     * @param sdkVersion {@code sdk.version}, or null
     */
    public record EnvelopeInfo(String eventId, Instant sentAt, String sdkName, String sdkVersion) {
    }
}
