package chunkrelay.chunk;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The Sentry platform names the relay knows, listed once, with what each means elsewhere: the OpenTelemetry frame
 * type and SDK language, and whether Relay counts its chunks as UI profiling ({@code profile_chunk_ui}).
 */
public enum SentryPlatform {
    ANDROID("android", "jvm", "java", true),
    C("c", "native", "cpp", false),
    COCOA("cocoa", "native", "swift", true),
    CSHARP("csharp", "dotnet", "dotnet", false),
    DART("dart", "dart", null, false),
    DOTNET("dotnet", "dotnet", "dotnet", false),
    ELIXIR("elixir", "beam", "erlang", false),
    ERLANG("erlang", "beam", "erlang", false),
    GO("go", "go", "go", false),
    JAVA("java", "jvm", "java", false),
    JAVASCRIPT("javascript", "v8js", "webjs", true),
    NATIVE("native", "native", "cpp", false),
    NODE("node", "v8js", "nodejs", false),
    OBJC("objc", "native", null, false),
    PERL("perl", "perl", null, false),
    PHP("php", "php", "php", false),
    PYTHON("python", "cpython", "python", false),
    RUBY("ruby", "ruby", "ruby", false),
    RUST("rust", "rust", "rust", false),
    SWIFT("swift", "native", "swift", false);

    private final String sentryName;
    private final String frameType;
    private final String sdkLanguage;
    private final boolean ui;

    private static final Map<String, SentryPlatform> BY_NAME = byName();

    SentryPlatform(String sentryName, String frameType, String sdkLanguage, boolean ui) {
        this.sentryName = sentryName;
        this.frameType = frameType;
        this.sdkLanguage = sdkLanguage;
        this.ui = ui;
    }

    /** The platform of a name as an SDK sends it, in any case; empty for a name the relay does not know. */
    public static Optional<SentryPlatform> named(String name) {
        if (name == null) {
            return Optional.empty();
        }
        // asked for every frame of a chunk: a lookup, and a lowercase copy only for a name not sent in lowercase
        SentryPlatform platform = BY_NAME.get(name);
        return Optional.ofNullable(platform != null ? platform : BY_NAME.get(name.toLowerCase(Locale.ROOT)));
    }

    private static Map<String, SentryPlatform> byName() {
        Map<String, SentryPlatform> byName = new HashMap<>();
        for (SentryPlatform platform : values()) {
            byName.put(platform.sentryName, platform);
        }
        return Map.copyOf(byName);
    }

    /** The name as Sentry writes it (lowercase). */
    public String sentryName() {
        return sentryName;
    }

    /** The semantic conventions' {@code profile.frame.type} of the platform's frames. */
    public String frameType() {
        return frameType;
    }

    /** The semantic conventions' {@code telemetry.sdk.language}, or null when they name none. */
    public String sdkLanguage() {
        return sdkLanguage;
    }

    /** Relay's UI platforms, whose chunks count as {@code profile_chunk_ui}. */
    public boolean ui() {
        return ui;
    }
}
