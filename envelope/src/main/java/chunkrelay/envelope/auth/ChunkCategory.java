package chunkrelay.envelope.auth;

import java.util.Set;

/**
 * Relay's data categories of profile chunks: {@code profile_chunk_ui} for the UI platforms, {@code profile_chunk}
 * for every other (backend) platform. SDKs back off per category when told so in {@code X-Sentry-Rate-Limits}.
 */
public enum ChunkCategory {
    PROFILE_CHUNK("profile_chunk"),
    PROFILE_CHUNK_UI("profile_chunk_ui");

    private static final Set<String> UI_PLATFORMS = Set.of("cocoa", "android", "javascript");

    private final String relayName;

    ChunkCategory(String relayName) {
        this.relayName = relayName;
    }

    String relayName() {
        return relayName;
    }

    public static ChunkCategory ofPlatform(String platform) {
        return platform != null && UI_PLATFORMS.contains(platform) ? PROFILE_CHUNK_UI : PROFILE_CHUNK;
    }
}
