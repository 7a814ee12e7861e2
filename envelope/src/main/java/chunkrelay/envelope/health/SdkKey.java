package chunkrelay.envelope.health;

/**
 * Who sent a chunk: the SDK's name and version and the chunk's platform, as sent (cut to {@link #MAX_LENGTH}
 * characters), {@code unknown} for what was not sent.
 */
public record SdkKey(String sdk, String version, String platform) {
    /** Client input kept in the bucket and in answers: longer values are cut. */
    static final int MAX_LENGTH = 64;
    static final String UNKNOWN = "unknown";
    /** Every SDK past {@link HealthConfig#maxSdks} in a project's hour, counted together. */
    static final SdkKey OTHER = new SdkKey("other", "other", "other");

    public SdkKey {
        sdk = clean(sdk);
        version = clean(version);
        platform = clean(platform);
    }

    private static String clean(String value) {
        if (value == null || value.isBlank()) {
            return UNKNOWN;
        }
        return value.length() <= MAX_LENGTH ? value : value.substring(0, MAX_LENGTH);
    }
}
