package chunkrelay.envelope.auth;

import chunkrelay.envelope.errors.RelayError;

import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The projects and keys the relay accepts. With none configured the relay runs in open mode: any well-formed key
 * may send to any project.
 */
@Singleton
public class ProjectRegistry {
    private final Map<Long, Set<String>> keysByProject = new HashMap<>();
    private final Map<Long, String> serviceNames = new HashMap<>();
    private final Map<Long, ProjectConfig.RateLimits> rateLimits = new HashMap<>();
    private final boolean openMode;

    public ProjectRegistry(List<ProjectConfig> projects) {
        for (ProjectConfig project : projects) {
            long id = ProjectIds.parse(project.id()).orElseThrow(() -> new ConfigurationException(
                    "relay.projects." + project.id() + ": a project id must be an unsigned integer"));
            Set<String> keys = new HashSet<>();
            for (String key : project.keys() == null ? List.<String>of() : project.keys()) {
                if (!ProjectKey.isValid(key)) {
                    throw new ConfigurationException("relay.projects." + project.id()
                            + ".keys: a public key must be 32 ASCII characters, got '" + key + "'");
                }
                keys.add(key);
            }
            keysByProject.put(id, Set.copyOf(keys));
            if (project.serviceName() != null && !project.serviceName().isBlank()) {
                serviceNames.put(id, project.serviceName().trim());
            }
            ProjectConfig.RateLimits limits = project.rateLimits();
            if (limits != null && (limits.chunksPerMinute() != null || limits.bytesPerMinute() != null)) {
                if (limits.chunksPerMinute() != null && limits.chunksPerMinute() < 0
                        || limits.bytesPerMinute() != null && limits.bytesPerMinute() < 0) {
                    throw new ConfigurationException("relay.projects." + project.id()
                            + ".rate-limits: chunks-per-minute and bytes-per-minute must not be negative");
                }
                rateLimits.put(id, limits);
            }
        }
        // a project configured only for its service name does not end open mode
        openMode = keysByProject.values().stream().allMatch(Set::isEmpty);
    }

    public boolean openMode() {
        return openMode;
    }

    /** The project's configured {@code service.name}, or null to derive it from each chunk's release. */
    public String serviceName(long projectId) {
        return serviceNames.get(projectId);
    }

    /** The project's per-minute quotas, or null when it has none. */
    public ProjectConfig.RateLimits rateLimits(long projectId) {
        return rateLimits.get(projectId);
    }

    public Collection<Long> projectIds() {
        return keysByProject.keySet();
    }

    /** Refuses, with 401, a key that is not one of the project's; in open mode every project takes every key. */
    public void authorize(long projectId, String publicKey) {
        if (openMode()) {
            return;
        }
        Set<String> keys = keysByProject.get(projectId);
        if (keys == null) {
            throw new RelayError(HttpStatus.UNAUTHORIZED, "unknown project",
                    "project " + ProjectIds.format(projectId) + " is not configured on this relay");
        }
        if (!keys.contains(publicKey)) {
            throw new RelayError(HttpStatus.UNAUTHORIZED, "unknown public key",
                    "the key is not one of project " + ProjectIds.format(projectId) + "'s keys");
        }
    }
}
