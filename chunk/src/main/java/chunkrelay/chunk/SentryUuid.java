package chunkrelay.chunk;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * A chunk or profiler id: 16 bytes. Relay accepts 32 hex digits or the dashed UUID form
 * (also braced or as a URN), in any case, and writes 32 lowercase hex digits.
 */
public record SentryUuid(long high, long low) {

    /**
     * Parses a UUID the way Relay's uuid crate does: 32 hex digits, the dashed form, the dashed form in
     * braces or after {@code urn:uuid:}; ASCII hex digits in any case. Returns null for anything else.
     */
    public static SentryUuid parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        String body = text;
        if (body.length() == 38 && body.charAt(0) == '{' && body.charAt(37) == '}') {
            body = body.substring(1, 37);
        } else if (body.length() == 45 && body.startsWith("urn:uuid:")) {
            body = body.substring(9);
        }
        String hex;
        if (body.length() == 32) {
            hex = body;
        } else if (body.length() == 36
                && body.charAt(8) == '-' && body.charAt(13) == '-'
                && body.charAt(18) == '-' && body.charAt(23) == '-') {
            hex = body.substring(0, 8) + body.substring(9, 13) + body.substring(14, 18)
                    + body.substring(19, 23) + body.substring(24);
        } else {
            return null;
        }
        for (int i = 0; i < 32; i++) {
            char c = hex.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
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
