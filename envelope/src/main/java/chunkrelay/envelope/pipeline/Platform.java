package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.SentryPlatform;

/** Sentry platform names as metric tags: client input must not grow a metric's tag values without bound. */
final class Platform {
    private Platform() {
    }

    static String metricTag(String platform) {
        return SentryPlatform.named(platform).map(SentryPlatform::sentryName).orElse("other");
    }
}
