package chunkrelay.chunk;

import java.util.List;

/** The debug image {@code type}s and {@code debug_id} forms Relay's profiling crate accepts. */
final class DebugImageTypes {
    static final List<String> NAMES = List.of("macho", "symbolic", "sourcemap", "proguard", "jvm");

    private DebugImageTypes() {
    }

    static boolean contains(String type) {
        return NAMES.contains(type);
    }

    /**
     * A debug id: a UUID (32 hex or dashed) optionally followed by an age/appendix of up to 8 hex digits
     * (after a dash), or the breakpad form of 33 to 40 hex digits.
     */
    static boolean isDebugId(String text) {
        if (text.length() >= 36 && SentryUuid.parseOrNull(text.substring(0, 36)) != null) {
            return isAppendix(text.substring(36));
        }
        return text.length() >= 32 && text.length() <= 40 && isHex(text);
    }

    private static boolean isAppendix(String rest) {
        if (rest.isEmpty()) {
            return true;
        }
        String digits = rest.startsWith("-") ? rest.substring(1) : rest;
        return !digits.isEmpty() && digits.length() <= 8 && isHex(digits);
    }

    private static boolean isHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
