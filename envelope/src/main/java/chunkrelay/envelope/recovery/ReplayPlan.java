package chunkrelay.envelope.recovery;

import chunkrelay.storage.ArchivedChunk;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * What a replay is about to send, known before it sends anything.
 *
 * @param found            archived chunks of the project in the range
 * @param skippedDelivered chunks with a delivery marker, not sent again
 * @param skippedRefused   chunks the endpoint refused for good before (refusal marker), not sent again unless
 *                         the replay includes them
 * @param toSend           the chunks it will send
 * @param maxAge           the endpoint's acceptance window, {@code relay.otlp.max-age}, when configured
 * @param olderThanMaxAge  chunks to send whose profile time (first sample) lies further back than {@code maxAge}:
 *                         an endpoint with that window refuses them
 */
public record ReplayPlan(String projectId, LocalDate from, LocalDate to, int found, int skippedDelivered,
                         int skippedRefused, List<ArchivedChunk> toSend, Optional<Duration> maxAge,
                         int olderThanMaxAge) {

    /** The warning to print before sending, when some chunks are older than the acceptance window. */
    public Optional<String> warning() {
        if (olderThanMaxAge == 0 || maxAge.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(olderThanMaxAge + " of the " + toSend.size() + " chunks to send hold profiles older than"
                + " relay.otlp.max-age (" + maxAge.get() + "): an endpoint with that acceptance window will refuse"
                + " them (Pyroscope: 400, not retried)");
    }
}
