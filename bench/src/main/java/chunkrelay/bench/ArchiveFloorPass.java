package chunkrelay.bench;

import com.github.luben.zstd.Zstd;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;

/**
 * The archive floor of a chunk (issue 49): the least a relay that archives the chunk must spend on it, which is to
 * inflate the body the SDK gzipped, decode every JSON value once ({@link JacksonValuePass}) and compress the JSON with
 * zstd at level 1.
 */
final class ArchiveFloorPass {
    private static final int ZSTD_LEVEL = 1;

    private ArchiveFloorPass() {
    }

    /** Inflates, decodes and compresses one gzipped chunk; a sum over the results, so that none can be skipped. */
    static long archive(byte[] gzipped) {
        byte[] json;
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped), 64 << 10)) {
            json = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return JacksonValuePass.values(json) + Zstd.compress(json, ZSTD_LEVEL).length;
    }
}
