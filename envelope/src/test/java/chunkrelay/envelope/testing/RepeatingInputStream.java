package chunkrelay.envelope.testing;

import java.io.InputStream;

/** {@code size} copies of one byte, generated as read, never held. */
public final class RepeatingInputStream extends InputStream {
    private final byte value;
    private long remaining;

    public RepeatingInputStream(byte value, long size) {
        this.value = value;
        this.remaining = size;
    }

    @Override
    public int read() {
        if (remaining <= 0) {
            return -1;
        }
        remaining--;
        return value & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (remaining <= 0) {
            return -1;
        }
        int n = (int) Math.min(len, remaining);
        java.util.Arrays.fill(b, off, off + n, value);
        remaining -= n;
        return n;
    }
}
