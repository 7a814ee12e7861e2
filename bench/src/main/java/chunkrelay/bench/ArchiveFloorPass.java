package chunkrelay.bench;

import com.github.luben.zstd.Zstd;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The archive floor of a chunk (issue 49): the least a relay that archives the chunk must spend on it, which is to
 * inflate the body the SDK gzipped, decode every JSON value once ({@link JacksonValuePass}) and compress the JSON with
 * zstd at level 1.
 */
final class ArchiveFloorPass {
    private static final int ZSTD_LEVEL = 1;

    private ArchiveFloorPass() {
    }

    /** The chunk's JSON gzipped as the SDKs send it (the default level). */
    static byte[] gzipped(byte[] json) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(json.length / 4);
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
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
