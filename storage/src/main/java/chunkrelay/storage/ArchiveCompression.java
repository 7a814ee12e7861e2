package chunkrelay.storage;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdInputStream;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** How archived objects are compressed; the name is also their {@code Content-Encoding}. */
public enum ArchiveCompression {
    ZSTD("zstd", ".zst"),
    GZIP("gzip", ".gz");

    /**
     * zstd level 1: on the recorded SDK chunks it compresses as well as the default level 3 (10.8-11.7x against
     * 10.7-11.6x) in 40-70% of the time (0.47 against 1.18 ms for a 365 KB Node chunk, 1.7 against 2.5 ms for a
     * 1.4 MB Java one), and the archive compresses every chunk it takes.
     */
    private static final int ZSTD_LEVEL = 1;
    /** The largest compression buffer a thread keeps (for chunks up to about 4 MiB of JSON). */
    private static final int SCRATCH_LIMIT = 4 << 20;
    private static final ThreadLocal<byte[]> ZSTD_SCRATCH = new ThreadLocal<>();
    /** The largest object decompressed in one call: a chunk's JSON is at most 50 MiB. */
    private static final long ONE_SHOT_LIMIT = 256L << 20;

    private final String encoding;
    private final String suffix;

    ArchiveCompression(String encoding, String suffix) {
        this.encoding = encoding;
        this.suffix = suffix;
    }

    /** The {@code Content-Encoding} value, also the configuration value ({@code zstd} | {@code gzip}). */
    public String encoding() {
        return encoding;
    }

    /** The key suffix, e.g. {@code .zst}. */
    public String suffix() {
        return suffix;
    }

    /** Every compression, the configured one first: where to look for an object whose suffix is not known. */
    static java.util.List<ArchiveCompression> inReadOrder(ArchiveCompression configured) {
        java.util.List<ArchiveCompression> order = new java.util.ArrayList<>(java.util.List.of(values()));
        order.remove(configured);
        order.add(0, configured);
        return order;
    }

    /** Parses a configuration value, {@code zstd} or {@code gzip} (any case). */
    public static ArchiveCompression fromName(String name) {
        for (ArchiveCompression c : values()) {
            if (c.encoding.equals(name.trim().toLowerCase(Locale.ROOT))) {
                return c;
            }
        }
        throw new IllegalArgumentException("relay.storage.compression must be zstd or gzip, not '" + name + "'");
    }

    static ArchiveCompression fromSuffix(String key) {
        for (ArchiveCompression c : values()) {
            if (key.endsWith(c.suffix)) {
                return c;
            }
        }
        throw new IllegalArgumentException("not a compressed archive key: " + key);
    }

    byte[] compress(byte[] data) {
        if (this == ZSTD) {
            return zstd(data);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.length / 4));
        try (GZIPOutputStream gzip = new GZIPOutputStream(out, 64 * 1024)) {
            gzip.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * One-shot zstd writes into a buffer of the worst-case size first (as large as the input): a per-thread buffer
     * takes that for inputs up to {@link #SCRATCH_LIMIT}, so a chunk costs its compressed size in allocation, not
     * its JSON size again.
     */
    private static byte[] zstd(byte[] data) {
        int bound = (int) Math.min(Integer.MAX_VALUE - 8, Zstd.compressBound(data.length));
        byte[] scratch = bound <= SCRATCH_LIMIT ? ZSTD_SCRATCH.get() : null;
        if (scratch == null || scratch.length < bound) {
            scratch = new byte[bound];
            if (bound <= SCRATCH_LIMIT) {
                ZSTD_SCRATCH.set(scratch);
            }
        }
        long size = Zstd.compressByteArray(scratch, 0, scratch.length, data, 0, data.length, ZSTD_LEVEL);
        if (Zstd.isError(size)) {
            throw new IllegalStateException("zstd compression failed: " + Zstd.getErrorName(size));
        }
        return Arrays.copyOf(scratch, (int) size);
    }

    byte[] decompress(byte[] data) {
        if (this == ZSTD) {
            byte[] oneShot = zstdOneShot(data);
            if (oneShot != null) {
                return oneShot;
            }
        }
        try (InputStream in = this == ZSTD
                ? new ZstdInputStream(new ByteArrayInputStream(data))
                : new GZIPInputStream(new ByteArrayInputStream(data), 64 * 1024)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A frame that states its size (every frame the archive writes) is decompressed in one call into an array of that
     * size, without a stream's buffers; null for anything else (no size, a size past {@link #ONE_SHOT_LIMIT},
     * several frames), which the stream then reads.
     */
    private static byte[] zstdOneShot(byte[] data) {
        long size = Zstd.getFrameContentSize(data);
        if (size < 0 || size > ONE_SHOT_LIMIT) {
            return null;
        }
        try {
            return Zstd.decompress(data, (int) size);
        } catch (ZstdException e) {
            return null;
        }
    }
}
