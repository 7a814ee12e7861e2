package chunkrelay.bench;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;

/**
 * The samples a gzipped pprof answer holds: the sum of every sample's first value ({@code samples/count}, the first
 * sample type the relay writes), read straight off the protobuf wire so that the check depends on no writer code.
 */
final class PprofSampleCount {
    private static final int PROFILE_SAMPLE = 2;
    private static final int SAMPLE_VALUE = 2;

    private PprofSampleCount() {
    }

    static long of(byte[] gzipped) {
        try (GZIPInputStream gzip = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
            CodedInputStream profile = CodedInputStream.newInstance(gzip);
            profile.setSizeLimit(Integer.MAX_VALUE);
            long count = 0;
            for (int tag = profile.readTag(); tag != 0; tag = profile.readTag()) {
                if (WireFormat.getTagFieldNumber(tag) == PROFILE_SAMPLE) {
                    count += firstValue(profile.readByteArray());
                } else {
                    profile.skipField(tag);
                }
            }
            return count;
        } catch (IOException e) {
            throw new UncheckedIOException("not a gzipped pprof profile", e);
        }
    }

    /** A Sample's first value, packed or not. */
    private static long firstValue(byte[] sample) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(sample);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (WireFormat.getTagFieldNumber(tag) != SAMPLE_VALUE) {
                in.skipField(tag);
            } else if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int limit = in.pushLimit(in.readRawVarint32());
                long value = in.readInt64();
                in.popLimit(limit);
                return value;
            } else {
                return in.readInt64();
            }
        }
        throw new IllegalStateException("a pprof sample without values");
    }
}
