package chunkrelay.translate.export;

import java.util.Locale;

/** Content-Encoding applied to the OTLP request body ({@code relay.otlp.compression}). */
public enum Compression {
    GZIP,
    NONE;

    /** Parses the configuration value {@code gzip} or {@code none} (case-insensitive). */
    public static Compression parse(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "gzip" -> GZIP;
            case "none" -> NONE;
            default -> throw new IllegalArgumentException(
                    "relay.otlp.compression must be gzip or none, got '" + value + "'");
        };
    }
}
