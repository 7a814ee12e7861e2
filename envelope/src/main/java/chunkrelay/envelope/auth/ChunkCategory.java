package chunkrelay.envelope.auth;

import chunkrelay.chunk.SentryPlatform;

/**
 * Relay's data categories of profile chunks: {@code profile_chunk_ui} for the UI platforms, {@code profile_chunk}
 * for every other (backend) platform. SDKs back off per category when told so in {@code X-Sentry-Rate-Limits}.
 */
public enum ChunkCategory {
    PROFILE_CHUNK("profile_chunk"),
    PROFILE_CHUNK_UI("profile_chunk_ui");

    private final String relayName;

    ChunkCategory(String relayName) {
        this.relayName = relayName;
    }

    String relayName() {
        return relayName;
    }

    public static ChunkCategory ofPlatform(String platform) {
        // Relay matches the name as sent, case included
        boolean ui = SentryPlatform.named(platform).filter(known -> known.sentryName().equals(platform))
                .map(SentryPlatform::ui).orElse(false);
        return ui ? PROFILE_CHUNK_UI : PROFILE_CHUNK;
    }
}
