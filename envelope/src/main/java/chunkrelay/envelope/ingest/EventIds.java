package chunkrelay.envelope.ingest;

import java.util.Locale;

/** Event ids are UUIDs; Relay accepts the usual spellings and answers with 32 lowercase hex digits. */
public final class EventIds {
    private EventIds() {
    }

    /** 32 lowercase hex digits, or null when the text is not a UUID (simple, hyphenated, braced or urn form). */
    public static String normalize(String text) {
        String s = text;
        if (s.regionMatches(true, 0, "urn:uuid:", 0, 9)) {
            s = s.substring(9);
        } else if (s.length() == 38 && s.charAt(0) == '{' && s.charAt(37) == '}') {
            s = s.substring(1, 37);
        }
        if (s.length() == 36) {
            if (s.charAt(8) != '-' || s.charAt(13) != '-' || s.charAt(18) != '-' || s.charAt(23) != '-') {
                return null;
            }
            s = s.substring(0, 8) + s.substring(9, 13) + s.substring(14, 18) + s.substring(19, 23) + s.substring(24);
        }
        if (s.length() != 32) {
            return null;
        }
        for (int i = 0; i < 32; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return null;
            }
        }
        return s.toLowerCase(Locale.ROOT);
    }
}
