package chunkrelay.envelope.health;

import chunkrelay.chunk.SentryPlatform;

import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An SDK as metric tags, bounded: the name when it is one of Sentry's SDKs that send profile chunks or may ({@link
 * #KNOWN}), else {@code other}; the version's major.minor ({@code 8.43}), else {@code other}; the platform when Sentry
 * knows it, else {@code other}. The version's digits come from the client, so the meters also stop at
 * {@link HealthMeters#MAX_SDK_TAGS} combinations, past which every SDK is {@code other}.
 */
record SdkLabels(String sdk, String version, String platform) {
    static final String OTHER = "other";
    static final SdkLabels ALL_OTHER = new SdkLabels(OTHER, OTHER, OTHER);
    /** Sentry's SDK names ({@code sdk.name}) whose SDKs profile, or may. */
    static final Set<String> KNOWN = Set.of("sentry.java", "sentry.java.android", "sentry.java.spring-boot",
            "sentry.java.spring-boot.jakarta", "sentry.javascript.node", "sentry.javascript.browser",
            "sentry.javascript.react-native", "sentry.javascript.electron", "sentry.javascript.bun",
            "sentry.javascript.deno", "sentry.python", "sentry.cocoa", "sentry.cocoa.flutter",
            "sentry.cocoa.react-native", "sentry.dart.flutter", "sentry.dotnet", "sentry.php", "sentry.ruby",
            "sentry.go", "sentry.rust", "sentry.native", "sentry.elixir");
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d{1,4})\\.(\\d{1,4})(?:[.\\-+].*)?$");

    static SdkLabels of(SdkKey key) {
        String name = KNOWN.contains(key.sdk()) ? key.sdk() : OTHER;
        Matcher version = MAJOR_MINOR.matcher(key.version());
        String majorMinor = version.matches()
                ? Integer.parseInt(version.group(1)) + "." + Integer.parseInt(version.group(2)) : OTHER;
        String platform = SentryPlatform.named(key.platform()).map(SentryPlatform::sentryName).orElse(OTHER);
        return new SdkLabels(name, majorMinor, platform);
    }
}
