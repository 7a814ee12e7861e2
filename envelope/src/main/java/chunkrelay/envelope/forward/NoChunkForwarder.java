package chunkrelay.envelope.forward;

import chunkrelay.storage.ArchiveKey;
import io.micronaut.context.annotation.Secondary;
import jakarta.inject.Singleton;

/** Forwarding is off unless {@code relay.otlp.endpoint} is set: chunks are archived only. */
@Singleton
@Secondary
public class NoChunkForwarder implements ChunkForwarder {

    @Override
    public void forward(ArchiveKey key, byte[] otlpRequest) {
        // nothing to send to: the archive holds the OTLP form for a later replay
    }

    @Override
    public boolean forwards() {
        return false;
    }
}
