package chunkrelay.envelope.recovery;

import java.time.LocalDate;
import java.util.List;

/**
 * What one replay did.
 *
 * @param found            archived chunks of the project in the range
 * @param skippedDelivered chunks with a delivery marker, not sent again
 * @param delivered        chunks sent now and answered with 2xx (delivery marker written)
 * @param failed           chunks that could not be read or delivered; they stay for the next replay
 * @param failures         one line per failed chunk: its stem and why
 */
public record ReplaySummary(String projectId, LocalDate from, LocalDate to, int found, int skippedDelivered,
                            int delivered, int failed, List<String> failures) {

    public boolean complete() {
        return failed == 0;
    }

    /** One line, e.g. {@code replay of project 1, 2026-11-01..2026-11-22: found 12, skipped (delivered) 3, ...}. */
    public String describe() {
        return "replay of project " + projectId + ", " + from + ".." + to + ": found " + found
                + ", skipped (already delivered) " + skippedDelivered + ", delivered " + delivered + ", failed "
                + failed;
    }
}
