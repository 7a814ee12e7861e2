package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ProfileChunk;
import com.github.luben.zstd.Zstd;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.util.Map;

/**
 * A chunk waiting for its link window, held in the form that costs least to keep and to finish: its OTLP form
 * translated without spans, compressed (37 KB for a 364 KB Node chunk, 34 KB for a 1.4 MB Java one, where the
 * normalised chunk takes 122 KB and 428 KB), with what linking it and archiving it need besides. When the window
 * ends it is linked ({@link chunkrelay.translate.SampleLinker}), or, when no span is known, taken as it is: the
 * chunk's JSON is parsed once.
 *
 * @param profilerId       hex, or null
 * @param firstSampleNanos the first sample's time (the chunk has at least one)
 * @param lastSampleNanos  the last sample's time
 * @param metadata         the archived forms' user metadata ({@link ArchivedMetadata})
 */
record PreparedChunk(byte[] compressedOtlp, int otlpLength, String profilerId, long firstSampleNanos,
                     long lastSampleNanos, int sampleCount, Map<String, String> metadata) {
    /** zstd's fastest regular level: the form lives seconds, so speed over ratio. */
    private static final int LEVEL = 1;

    static PreparedChunk of(ProfileChunk chunk, ExportProfilesServiceRequest unlinked, Map<String, String> metadata) {
        byte[] otlp = unlinked.toByteArray();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int s = 0; s < chunk.sampleCount(); s++) {
            first = Math.min(first, chunk.sampleTimestampNanos(s));
            last = Math.max(last, chunk.sampleTimestampNanos(s));
        }
        return new PreparedChunk(Zstd.compress(otlp, LEVEL), otlp.length,
                chunk.profilerId() == null ? null : chunk.profilerId().toHex(), first, last, chunk.sampleCount(),
                Map.copyOf(metadata));
    }

    /** The OTLP form translated without spans ({@code ExportProfilesServiceRequest} bytes). */
    byte[] otlp() {
        return Zstd.decompress(compressedOtlp, otlpLength);
    }

    /** What holding it costs, for the pending budget. */
    long heapBytes() {
        return 256L + compressedOtlp.length + 128L * metadata.size();
    }
}
