package chunkrelay.chunk;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * A chunk or profiler id: 16 bytes. Relay accepts 32 hex digits or the dashed UUID form,
 * in any case, and writes 32 lowercase hex digits.
 */
public record SentryUuid(long high, long low) {

    /** Parses 32 hex digits or a dashed UUID, any case; returns null when the text is neither. */
    public static SentryUuid parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        String hex;
        if (text.length() == 32) {
            hex = text;
        } else if (text.length() == 36
                && text.charAt(8) == '-' && text.charAt(13) == '-'
                && text.charAt(18) == '-' && text.charAt(23) == '-') {
            hex = text.substring(0, 8) + text.substring(9, 13) + text.substring(14, 18)
                    + text.substring(19, 23) + text.substring(24);
        } else {
            return null;
        }
        for (int i = 0; i < 32; i++) {
            if (Character.digit(hex.charAt(i), 16) < 0) {
                return null;
            }
        }
        return new SentryUuid(Long.parseUnsignedLong(hex.substring(0, 16), 16),
                Long.parseUnsignedLong(hex.substring(16), 16));
    }

    public byte[] toBytes() {
        return ByteBuffer.allocate(16).putLong(high).putLong(low).array();
    }

    /** 32 lowercase hex digits, as Relay writes ids. */
    public String toHex() {
        return String.format(Locale.ROOT, "%016x%016x", high, low);
    }

    @Override
    public String toString() {
        return toHex();
    }
}
