package chunkrelay.chunk.art;

/** Strict UTF-8 validation as Rust's {@code str::from_utf8}: no overlong forms, surrogates or values past U+10FFFF. */
final class Utf8 {
    private Utf8() {
    }

    static boolean isValid(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            int b = bytes[i] & 0xFF;
            if (b < 0x80) {
                i++;
                continue;
            }
            int length;
            int min;
            int cp;
            if (b >= 0xC2 && b <= 0xDF) {
                length = 2;
                min = 0x80;
                cp = b & 0x1F;
            } else if (b >= 0xE0 && b <= 0xEF) {
                length = 3;
                min = 0x800;
                cp = b & 0x0F;
            } else if (b >= 0xF0 && b <= 0xF4) {
                length = 4;
                min = 0x10000;
                cp = b & 0x07;
            } else {
                return false;
            }
            if (i + length > to) {
                return false;
            }
            for (int k = 1; k < length; k++) {
                int c = bytes[i + k] & 0xFF;
                if ((c & 0xC0) != 0x80) {
                    return false;
                }
                cp = (cp << 6) | (c & 0x3F);
            }
            if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                return false;
            }
            i += length;
        }
        return true;
    }
}
