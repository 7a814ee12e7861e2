package chunkrelay.storage;

import java.util.Optional;

/**
 * Project ids are unsigned 64-bit integers written in decimal, as Relay reads them: parsed once where they come in
 * (the endpoint, configuration, a view's path, a folder of the bucket), and written back, as the project's folder in
 * the bucket or in a message, by {@link #format} alone.
 */
public final class ProjectIds {
    private ProjectIds() {
    }

    /**
     * The id of a project's folder in the bucket, which the relay named by {@link #format}.
     *
     * @throws IllegalArgumentException for a folder that is not a project id
     */
    public static long ofFolder(String folder) {
        return parse(folder).orElseThrow(() -> new IllegalArgumentException("not a project's folder: " + folder));
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

    public static String format(long projectId) {
        return Long.toUnsignedString(projectId);
    }
}
