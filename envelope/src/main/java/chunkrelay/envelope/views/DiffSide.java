package chunkrelay.envelope.views;

import java.time.Instant;

/**
 * One side of a differential flame graph as the {@code baseline} or {@code comparison} parameter gives it: a range
 * {@code <from>/<to>} (RFC 3339 times or Unix seconds, ISO 8601's interval form), or a release,
 * {@code release:<name>} or just the name, over the query's own range.
 *
 * @param label what the side is, for people
 * @param query the view query of the side
 */
public record DiffSide(String label, ViewQuery query) {

    /**
     * Reads one side.
     *
     * @throws chunkrelay.envelope.errors.RelayError 400 when it is missing or a malformed range
     */
    public static DiffSide parse(String name, String value, ViewQuery query) {
        if (value == null || value.isBlank()) {
            throw ViewQuery.bad(name + " is required: a range <from>/<to> or a release (release:<name>)");
        }
        String text = value.trim();
        if (text.startsWith("release:")) {
            return release(text.substring("release:".length()), query);
        }
        int slash = text.indexOf('/');
        if (slash > 0 && looksLikeTime(text.substring(0, slash))) {
            Instant from = ViewQuery.time(name + " (its start)", text.substring(0, slash));
            Instant to = ViewQuery.time(name + " (its end)", text.substring(slash + 1));
            return new DiffSide(from + "/" + to, query.withRange(from, to));
        }
        return release(text, query);
    }

    private static DiffSide release(String release, ViewQuery query) {
        if (release.isBlank()) {
            throw ViewQuery.bad("a release side needs a name: release:<name>");
        }
        return new DiffSide("release " + release, query.withRelease(release));
    }

    /** Release names rarely start with four digits or are all digits; times always do. */
    private static boolean looksLikeTime(String text) {
        return text.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}T.*") || text.matches("[0-9]+(\\.[0-9]+)?");
    }
}
