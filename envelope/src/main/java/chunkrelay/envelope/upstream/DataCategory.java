package chunkrelay.envelope.upstream;

import java.util.List;

/**
 * Sentry's rate-limit data categories of envelope items, as SDKs map them: what an {@code X-Sentry-Rate-Limits}
 * entry for a category removes. Client reports are never limited; unknown items and session aggregates are not
 * removed by item limits.
 */
final class DataCategory {
    private DataCategory() {
    }

    /** The categories a limit on which removes an item of this type; empty when no limit removes it. */
    static List<String> of(String itemType) {
        return switch (itemType) {
            case "event" -> List.of("error", "default");
            case "security", "raw_security", "nel" -> List.of("security", "default");
            case "transaction" -> List.of("transaction");
            case "span", "otel_span" -> List.of("span");
            case "session" -> List.of("session");
            case "attachment" -> List.of("attachment");
            case "profile" -> List.of("profile");
            case "profile_chunk" -> List.of("profile_chunk");
            case "profile_chunk_ui" -> List.of("profile_chunk_ui");
            case "replay_event", "replay_recording", "replay_video" -> List.of("replay");
            case "check_in" -> List.of("monitor");
            case "log", "otel_log" -> List.of("log_item");
            case "feedback", "user_report" -> List.of("feedback", "user_report_v2");
            default -> List.of();
        };
    }

    /** The category a drop of this item is reported under in a client report. */
    static String reportedAs(String itemType) {
        List<String> categories = of(itemType);
        return categories.isEmpty() ? "default" : categories.get(0);
    }
}
