package chunkrelay.envelope.forward;

import chunkrelay.storage.ArchiveKey;

/**
 * Sends the OTLP form of an archived chunk on to the OTLP endpoint, off the request path. Called only after both
 * forms are archived, so whatever the forwarder cannot deliver can be replayed from the archive.
 */
public interface ChunkForwarder {

    void forward(ArchiveKey key, byte[] otlpRequest);

    /** Whether {@link #forward} sends anything, so that a caller can skip preparing what would not be sent. */
    default boolean forwards() {
        return true;
    }
}
