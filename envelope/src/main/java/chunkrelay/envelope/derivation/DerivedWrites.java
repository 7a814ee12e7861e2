package chunkrelay.envelope.derivation;

import chunkrelay.envelope.forward.ChunkForwarder;
import chunkrelay.envelope.rollups.OpenMinutes;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveResult;
import chunkrelay.storage.ChunkArchive;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.List;

/**
 * Writes a derived OTLP form once (a conditional write, so that when two replicas race only one writes and only that
 * one forwards), counts its samples' link outcome, tells the open minutes, and forwards it.
 */
final class DerivedWrites {
    private final ChunkArchive archive;
    private final ChunkForwarder forwarder;
    private final OpenMinutes openMinutes;
    private final MeterRegistry meters;
    private final LinkedSampleCounts linkedSamples;

    DerivedWrites(ChunkArchive archive, ChunkForwarder forwarder, OpenMinutes openMinutes, MeterRegistry meters,
                  LinkedSampleCounts linkedSamples) {
        this.archive = archive;
        this.forwarder = forwarder;
        this.openMinutes = openMinutes;
        this.meters = meters;
        this.linkedSamples = linkedSamples;
        for (String when : List.of("window", "recovery", "stop")) {
            RelayMeter.CHUNKS_DERIVED.counter(meters, when);
        }
        RelayMeter.DERIVATIONS_DUPLICATES.counter(meters);
    }

    /**
     * Writes a derived OTLP form once and forwards it; nothing for a chunk whose Sentry form is gone (null).
     *
     * @param forward whether to hand it to the forwarder (replay sends what it derives itself)
     */
    void store(long projectId, ArchiveKey key, OtlpForms.Derived derived, String when, boolean forward) {
        if (derived == null) {
            return;
        }
        ArchiveResult result = derived.otlp() != null
                ? archive.storeDerivedOtlp(key, derived.otlp(), derived.metadata())
                : archive.storeCompressedDerivedOtlp(key, derived.stored(), derived.metadata());
        if (result == ArchiveResult.DUPLICATE) {
            // another replica, or an earlier attempt of ours, derived and forwarded it
            RelayMeter.DERIVATIONS_DUPLICATES.counter(meters).increment();
            return;
        }
        // counted by the one derivation that wrote the form, so a chunk derived again (replay, a racing replica) is not
        LinkMeters.record(meters, derived.linked(), derived.unlinked(), derived.ambiguous());
        linkedSamples.linked(projectId, derived.receipt(), derived.linked(), derived.linked() + derived.ambiguous());
        // the views of the newest minutes read it from there rather than from the archive
        openMinutes.derived(key, derived.metadata(), derived.form(), derived.stored(),
                derived.asTranslatedAtReceipt());
        RelayMeter.CHUNKS_DERIVED.counter(meters, when).increment();
        if (forward) {
            RelayMeter.CHUNK_STAGE.timer(meters, "forward").record(() -> {
                if (forwarder.forwards()) {
                    forwarder.forward(key, derived.otlp() != null ? derived.otlp()
                            : archive.decompress(derived.stored()));
                }
                return null;
            });
        }
    }
}
