package chunkrelay.translate;

import java.util.Optional;

/**
 * What the relay knows about a chunk beyond the chunk itself.
 *
 * @param projectId           the Sentry project the envelope was sent to
 * @param serviceNameOverride the {@code service.name} configured for the project, or null to derive it
 *                            from the chunk's release
 */
public record TranslationContext(long projectId, String serviceNameOverride) {

    public TranslationContext {
        if (serviceNameOverride != null && serviceNameOverride.isBlank()) {
            serviceNameOverride = null;
        }
    }

    public static TranslationContext forProject(long projectId) {
        return new TranslationContext(projectId, null);
    }

    public TranslationContext withServiceName(String serviceName) {
        return new TranslationContext(projectId, serviceName);
    }

    public Optional<String> serviceName() {
        return Optional.ofNullable(serviceNameOverride);
    }
}
