package chunkrelay.envelope.auth;

import java.util.Optional;

/** Project ids are unsigned 64-bit integers written in decimal. */
public final class ProjectIds {
    private ProjectIds() {
    }

    public static Optional<Long> parse(String text) {
        if (text.isEmpty() || text.length() > 20 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseUnsignedLong(text));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    static String format(long projectId) {
        return Long.toUnsignedString(projectId);
    }
}
