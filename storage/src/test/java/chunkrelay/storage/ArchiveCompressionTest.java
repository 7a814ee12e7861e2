package chunkrelay.storage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
}
