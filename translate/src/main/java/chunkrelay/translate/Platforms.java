package chunkrelay.translate;

import chunkrelay.chunk.SentryPlatform;

import java.util.Locale;

/** What a Sentry platform name and unit mean in OpenTelemetry's vocabulary ({@link SentryPlatform}). */
final class Platforms {
    private Platforms() {
    }

    /**
     * The {@code profile.frame.type} for frames of a Sentry platform. Platforms the semantic
     * conventions do not name pass through unchanged (lowercased), since consumers such as Elastic
     * expect every location to carry a frame type.
     */
    static String frameType(String platform) {
        return SentryPlatform.named(platform).map(SentryPlatform::frameType)
                .orElse(platform.toLowerCase(Locale.ROOT));
    }

    /** The {@code telemetry.sdk.language} of a Sentry platform, or null when the conventions name none. */
    static String sdkLanguage(String platform) {
        return SentryPlatform.named(platform).map(SentryPlatform::sdkLanguage).orElse(null);
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
