package chunkrelay.bench;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.OtlpAttributes;
import chunkrelay.translate.TranslationContext;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * OTLP bytes against the chunk's JSON bytes, plain and gzipped (level 6, as gzip and the SDKs use), with where the
 * gzipped OTLP bytes go: the samples' timestamps alone, the measurements, and everything else.
 */
final class OutputSizes {
    record Sizes(String chunk, int json, int jsonGzip, int otlp, int otlpGzip, int timestampsGzip,
                 int timestampsInTimeOrderGzip, int measurementsGzip) {
        double plainRatio() {
            return (double) otlp / json;
        }

        double gzipRatio() {
            return (double) otlpGzip / jsonGzip;
        }
    }

    private OutputSizes() {
    }

    static Sizes of(BenchChunks.Item item) {
        ProfileChunk chunk = item.normalise();
        ExportProfilesServiceRequest request = new ChunkTranslator("chunk-relay", "bench")
                .translate(chunk, TranslationContext.forProject(1));
        byte[] otlp = request.toByteArray();
        int otlpGzip = gzip(otlp);
        return new Sizes(item.name(), item.payload().length, gzip(item.payload()), otlp.length, otlpGzip,
                gzip(timestampsOnly(request).toByteArray()), gzip(timestampsInTimeOrder(chunk)),
                otlpGzip - gzip(withoutMeasurements(request)));
    }

    /** Every sample's timestamp as fixed64, in time order: what they would cost if OTLP did not group samples. */
    private static byte[] timestampsInTimeOrder(ProfileChunk chunk) {
        ByteBuffer timestamps = ByteBuffer.allocate(8 * chunk.sampleCount()).order(ByteOrder.LITTLE_ENDIAN);
        for (int s = 0; s < chunk.sampleCount(); s++) {
            timestamps.putLong(chunk.sampleTimestampNanos(s));
        }
        return timestamps.array();
    }

    /** The samples' timestamps as the request lays them out (one Sample per stack and thread), nothing else. */
    private static Profile timestampsOnly(ExportProfilesServiceRequest request) {
        Profile.Builder timestamps = Profile.newBuilder();
        for (Sample sample : profile(request).getSamplesList()) {
            timestamps.addSamples(Sample.newBuilder().addAllTimestampsUnixNano(sample.getTimestampsUnixNanoList()));
        }
        return timestamps.build();
    }

    /** The request without its measurement attributes (indices left dangling: only its size is looked at). */
    private static byte[] withoutMeasurements(ExportProfilesServiceRequest request) {
        ProfilesDictionary dictionary = request.getDictionary();
        ProfilesDictionary.Builder kept = dictionary.toBuilder().clearAttributeTable();
        dictionary.getAttributeTableList().stream()
                .filter(a -> !dictionary.getStringTable(a.getKeyStrindex())
                        .startsWith(OtlpAttributes.SENTRY_MEASUREMENT_PREFIX))
                .forEach(kept::addAttributeTable);
        ExportProfilesServiceRequest.Builder without = request.toBuilder().setDictionary(kept);
        without.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0).clearAttributeIndices();
        return without.build().toByteArray();
    }

    private static Profile profile(ExportProfilesServiceRequest request) {
        return request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
    }

    static int gzip(byte[] bytes) {
        return Gzip.of(bytes).length;
    }
}
