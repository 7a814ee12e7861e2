package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.translate.OtlpHeap;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.util.Map;

/**
 * A chunk waiting for its link window, its OTLP form translated without spans, with what linking it and archiving it
 * need besides. Held as the OTLP object while the pending objects' budget allows (then it links without being
 * decompressed and parsed again, 12 to 24% less CPU), else compressed as the archive stores it (37 KB for a 364 KB Node
 * chunk, 34 KB for a 1.4 MB Java one, where the normalised chunk takes 122 KB and 428 KB, and the object 157 KB and
 * 302 KB). When the window ends it is linked ({@link chunkrelay.translate.SampleLinker}), or, when no span is known,
 * stored as it is: the chunk's JSON is parsed once either way.
 *
 * @param unlinked         the OTLP object, or null when the chunk waits as {@code storedOtlp}
 * @param storedOtlp       the {@code ExportProfilesServiceRequest} bytes, compressed by the archive, or null
 * @param profilerId       hex, or null
 * @param firstSampleNanos the first sample's time (the chunk has at least one)
 * @param lastSampleNanos  the last sample's time
 * @param metadata         the archived forms' user metadata ({@link ArchivedMetadata})
 */
record PreparedChunk(ExportProfilesServiceRequest unlinked, byte[] storedOtlp, String profilerId,
                     long firstSampleNanos, long lastSampleNanos, int sampleCount, Map<String, String> metadata) {
    static PreparedChunk of(ProfileChunk chunk, ExportProfilesServiceRequest unlinked, byte[] storedOtlp,
                            Map<String, String> metadata) {
        return new PreparedChunk(unlinked, storedOtlp, chunk.profilerId() == null ? null : chunk.profilerId().toHex(),
                chunk.firstSampleNanos(), chunk.lastSampleNanos(), chunk.sampleCount(), Map.copyOf(metadata));
    }

    /** What holding it costs, for the pending budget. */
    long heapBytes() {
        return 256L + (unlinked != null ? OtlpHeap.bytes(unlinked) : storedOtlp.length) + 128L * metadata.size();
    }
}
