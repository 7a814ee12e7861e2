package chunkrelay.envelope.forward;

import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.translate.export.ForwardRequest;
import chunkrelay.translate.export.ForwardingQueue;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each archived chunk's OTLP form to the forwarding queue under its archive stem, without waiting: when
 * the queue is full the chunk is marked for replay instead (it is archived already, the client still gets 200).
 */
@Singleton
@Requires(property = "relay.otlp.endpoint")
public class OtlpChunkForwarder implements ChunkForwarder {
    static final String QUEUE_FULL = "forward queue full";
    private static final Logger LOG = LoggerFactory.getLogger(OtlpChunkForwarder.class);

    private final ForwardingQueue queue;
    private final DeliveryMarkers markers;

    public OtlpChunkForwarder(ForwardingQueue queue, DeliveryMarkers markers) {
        this.queue = queue;
        this.markers = markers;
    }

    @Override
    public void forward(ArchiveKey key, byte[] otlpRequest) {
        if (queue.offer(new ForwardRequest(key.stem(), otlpRequest))) {
            return;
        }
        LOG.warn("OTLP forwarding queue full: chunk {} is archived and marked for replay", key.stem());
        try {
            markers.markForReplay(key, QUEUE_FULL);
        } catch (ArchiveUnavailableException e) {
            // replay also re-sends chunks without a delivery marker: the chunk is not lost, only unmarked
            LOG.warn("could not mark chunk {} for replay: {}", key.stem(), e.getMessage());
        }
    }
}
