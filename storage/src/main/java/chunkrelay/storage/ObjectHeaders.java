package chunkrelay.storage;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What an object is stored with besides its bytes.
 *
 * @param contentEncoding the compression of the body, or null for none
 * @param metadata        user metadata, already header-safe
 */
record ObjectHeaders(String contentType, String contentEncoding, Map<String, String> metadata) {
    private static final int MAX_METADATA_VALUE_LENGTH = 256;

    /**
     * Metadata travels as HTTP headers: printable ASCII passes, anything else (and {@code %}) is
     * percent-encoded as UTF-8; values are capped so that all of them stay within S3's 2 KB.
     */
    static String safeValue(String value) {
        StringBuilder s = new StringBuilder(Math.min(value.length(), MAX_METADATA_VALUE_LENGTH));
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean plain = c >= 0x20 && c < 0x7f && c != '%';
            if (s.length() + (plain ? 1 : 3) > MAX_METADATA_VALUE_LENGTH) {
                break;
            }
            if (plain) {
                s.append((char) c);
            } else {
                s.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return s.toString();
    }
}
