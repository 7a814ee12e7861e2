package chunkrelay.translate;

import java.util.Locale;

/** What a Sentry platform name means in OpenTelemetry's vocabulary. */
final class Platforms {
    private Platforms() {
    }

    /**
     * The {@code profile.frame.type} for frames of a Sentry platform. Platforms the semantic
     * conventions do not name pass through unchanged (lowercased), since consumers such as Elastic
     * expect every location to carry a frame type.
     */
    static String frameType(String platform) {
        String p = platform.toLowerCase(Locale.ROOT);
        return switch (p) {
            case "python" -> "cpython";
            case "node", "javascript" -> "v8js";
            case "java", "android" -> "jvm";
            case "cocoa", "native", "c", "objc", "swift" -> "native";
            case "csharp" -> "dotnet";
            case "elixir", "erlang" -> "beam";
            default -> p;
        };
    }

    /** The {@code telemetry.sdk.language} of a Sentry platform, or null when the conventions name none. */
    static String sdkLanguage(String platform) {
        return switch (platform.toLowerCase(Locale.ROOT)) {
            case "python" -> "python";
            case "node" -> "nodejs";
            case "javascript" -> "webjs";
            case "java", "android" -> "java";
            case "cocoa", "swift" -> "swift";
            case "native", "c" -> "cpp";
            case "ruby" -> "ruby";
            case "php" -> "php";
            case "dotnet", "csharp" -> "dotnet";
            case "go" -> "go";
            case "rust" -> "rust";
            case "elixir", "erlang" -> "erlang";
            default -> null;
        };
    }

    /** The UCUM form of a Sentry measurement unit; units it does not know pass through unchanged. */
    static String ucumUnit(String sentryUnit) {
        return switch (sentryUnit.toLowerCase(Locale.ROOT)) {
            case "nanosecond", "ns" -> "ns";
            case "hertz", "hz" -> "Hz";
            case "byte" -> "By";
            case "percent" -> "%";
            case "nanojoule", "nj" -> "nJ";
            default -> sentryUnit;
        };
    }
}
