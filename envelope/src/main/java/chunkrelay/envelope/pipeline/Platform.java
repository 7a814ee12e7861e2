package chunkrelay.envelope.pipeline;

import java.util.Locale;
import java.util.Set;

/** Sentry platform names as metric tags: client input must not grow a metric's tag values without bound. */
final class Platform {
    private static final Set<String> KNOWN = Set.of("android", "cocoa", "csharp", "dart", "dotnet", "elixir",
            "go", "java", "javascript", "native", "node", "perl", "php", "python", "ruby", "rust");

    private Platform() {
    }

    static String metricTag(String platform) {
        String name = platform == null ? "" : platform.toLowerCase(Locale.ROOT);
        return KNOWN.contains(name) ? name : "other";
    }
}
