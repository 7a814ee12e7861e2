package chunkrelay.storage;

import org.junit.jupiter.api.Test;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStream;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArchiveCompressionTest {

    private static byte[] json(int bytes, long seed) {
        Random random = new Random(seed);
        StringBuilder s = new StringBuilder(bytes + 64);
        while (s.length() < bytes) {
            s.append("{\"stack_id\":").append(random.nextInt(500)).append(",\"thread_id\":\"1\",\"timestamp\":")
                    .append(1_700_000_000 + random.nextInt(60)).append('.').append(random.nextInt(1_000_000))
                    .append("},");
        }
        return s.substring(0, bytes).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void zstdRoundTripsAndRepeatsItselfWhateverTheSizesBefore() {
        // a large input, then a small one on the same thread, then one past the kept buffer's limit
        for (byte[] data : new byte[][] {json(1_400_000, 1), json(3_000, 2), json(0, 3), json(6 << 20, 4),
                json(70_000, 5)}) {
            byte[] compressed = ArchiveCompression.ZSTD.compress(data);
            assertArrayEquals(data, ArchiveCompression.ZSTD.decompress(compressed));
            assertArrayEquals(compressed, ArchiveCompression.ZSTD.compress(data), "the same bytes on a retry");
            assertTrue(data.length < 1000 || compressed.length < data.length / 2, "compressed " + compressed.length);
        }
    }

    @Test
    void gzipRoundTrips() {
        byte[] data = json(200_000, 6);
        assertArrayEquals(data, ArchiveCompression.GZIP.decompress(ArchiveCompression.GZIP.compress(data)));
    }

    @Test
    void zstdReadsObjectsItDidNotWriteItselfFramesWithoutASizeAndSeveralFrames() throws Exception {
        byte[] first = json(300_000, 7);
        byte[] second = json(50_000, 8);
        // a streaming writer states no content size
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(streamed)) {
            out.write(first);
        }
        assertEquals(-1, Zstd.getFrameContentSize(streamed.toByteArray()), "the frame states no size");
        assertArrayEquals(first, ArchiveCompression.ZSTD.decompress(streamed.toByteArray()));
        // two frames one after the other: the first one's size is not the object's
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        frames.write(ArchiveCompression.ZSTD.compress(first));
        frames.write(ArchiveCompression.ZSTD.compress(second));
        ByteArrayOutputStream both = new ByteArrayOutputStream();
        both.write(first);
        both.write(second);
        assertArrayEquals(both.toByteArray(), ArchiveCompression.ZSTD.decompress(frames.toByteArray()));
    }

    @Test
    void zstdRefusesACorruptObject() {
        byte[] compressed = ArchiveCompression.ZSTD.compress(json(100_000, 9));
        byte[] corrupt = java.util.Arrays.copyOf(compressed, compressed.length / 2);
        assertThrows(RuntimeException.class, () -> ArchiveCompression.ZSTD.decompress(corrupt));
    }
}
