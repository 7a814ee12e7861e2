package chunkrelay.translate;

import java.util.Objects;
import java.util.Optional;

/**
 * What the relay knows about a chunk beyond the chunk itself.
 *
 * @param projectId           the Sentry project the envelope was sent to
 * @param serviceNameOverride the {@code service.name} configured for the project, or null to derive it
 *                            from the chunk's release
 * @param spans               the spans of the chunk's profiler known at translation, which samples link to
 */
public record TranslationContext(long projectId, String serviceNameOverride, SpanTimeline spans) {

    public TranslationContext {
        if (serviceNameOverride != null && serviceNameOverride.isBlank()) {
            serviceNameOverride = null;
        }
        Objects.requireNonNull(spans, "spans");
    }

    public static TranslationContext forProject(long projectId) {
        return new TranslationContext(projectId, null, SpanTimeline.NONE);
    }

    public TranslationContext withServiceName(String serviceName) {
        return new TranslationContext(projectId, serviceName, spans);
    }

    public TranslationContext withSpans(SpanTimeline spans) {
        return new TranslationContext(projectId, serviceNameOverride, spans);
    }

    public Optional<String> serviceName() {
        return Optional.ofNullable(serviceNameOverride);
    }
}
