package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ProfileChunk;

import java.util.Map;

/**
 * A chunk waiting for its link window, held in the form that costs least to keep and to finish: its OTLP form
 * translated without spans, compressed as the archive stores it (37 KB for a 364 KB Node chunk, 34 KB for a 1.4 MB
 * Java one, where the normalised chunk takes 122 KB and 428 KB), with what linking it and archiving it need besides.
 * When the window ends it is linked ({@link chunkrelay.translate.SampleLinker}), or, when no span is known, stored
 * as it is: the chunk's JSON is parsed once, and an unlinked form is compressed once.
 *
 * @param storedOtlp       the {@code ExportProfilesServiceRequest} bytes, compressed by the archive
 * @param profilerId       hex, or null
 * @param firstSampleNanos the first sample's time (the chunk has at least one)
 * @param lastSampleNanos  the last sample's time
 * @param metadata         the archived forms' user metadata ({@link ArchivedMetadata})
 */
record PreparedChunk(byte[] storedOtlp, String profilerId, long firstSampleNanos, long lastSampleNanos,
                     int sampleCount, Map<String, String> metadata) {

    static PreparedChunk of(ProfileChunk chunk, byte[] storedOtlp, Map<String, String> metadata) {
        return new PreparedChunk(storedOtlp, chunk.profilerId() == null ? null : chunk.profilerId().toHex(),
                chunk.firstSampleNanos(), chunk.lastSampleNanos(), chunk.sampleCount(), Map.copyOf(metadata));
    }

    /** What holding it costs, for the pending budget. */
    long heapBytes() {
        return 256L + storedOtlp.length + 128L * metadata.size();
    }
}
