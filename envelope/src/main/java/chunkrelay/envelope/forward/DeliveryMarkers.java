package chunkrelay.envelope.forward;

import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.translate.export.DeliveryListener;
import chunkrelay.translate.export.DeliveryResult;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes the end of each forwarding next to the archived chunk: a delivery marker after a 2xx (replay skips the
 * chunk), a refusal marker with the endpoint's reason after a refusal for good (nothing sends it again unasked), a
 * replay marker after retries ran out or when the queue closed first. Replay also re-sends chunks without any
 * marker, so a marker that cannot be written loses nothing.
 */
@Singleton
public class DeliveryMarkers implements DeliveryListener {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryMarkers.class);

    private final ChunkArchive archive;
    /** A chunk was marked for replay since the recovery pass last asked: the pass has something to look for. */
    private final AtomicBoolean replayMarked = new AtomicBoolean();

    public DeliveryMarkers(ChunkArchive archive) {
        this.archive = archive;
    }

    /** Marks a chunk for replay, for the recovery pass of any replica to pick up. */
    public void markForReplay(ArchiveKey key, String reason) {
        archive.markForReplay(key, reason);
        replayMarked.set(true);
    }

    /** Whether a chunk was marked for replay since the last call. */
    public boolean takeReplayMarked() {
        return replayMarked.getAndSet(false);
    }

    @Override
    public void delivered(String stem, DeliveryResult result) {
        archive.markDelivered(ArchiveKey.ofStem(stem));
    }

    @Override
    public void failed(String stem, DeliveryResult result) {
        if (result.refused()) {
            LOG.warn("OTLP endpoint refused chunk {} for good, not sent again: {}", stem, result.reason());
            archive.markRefused(ArchiveKey.ofStem(stem), result.reason());
            return;
        }
        LOG.warn("OTLP forwarding of chunk {} failed after {} attempt(s), marked for replay: {}", stem,
                result.attempts(), result.reason());
        markForReplay(ArchiveKey.ofStem(stem), result.reason());
    }

    @Override
    public void dropped(String stem, String reason) {
        markForReplay(ArchiveKey.ofStem(stem), reason);
    }
}
