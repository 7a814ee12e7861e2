package chunkrelay.envelope.auth;

import chunkrelay.envelope.archive.RetentionPeriod;
import chunkrelay.envelope.errors.RelayError;
import chunkrelay.storage.ProjectIds;

import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.http.HttpStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The projects and keys the relay accepts. With none configured the relay runs in open mode: any well-formed key
 * may send to any project. The relay's instance comes from {@link ProjectRegistryFactory}.
 */
public class ProjectRegistry {
    private static final Pattern PROJECT_VARIABLE = Pattern.compile("RELAY_PROJECTS_([0-9]+)_[A-Z_]+");
    private final Map<Long, Set<String>> keysByProject = new HashMap<>();
    private final Map<Long, String> serviceNames = new HashMap<>();
    private final Map<Long, ProjectConfig.RateLimits> rateLimits = new HashMap<>();
    private final Map<Long, Duration> retentions = new HashMap<>();
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
            if (project.retention() != null && !project.retention().isBlank()) {
                retentions.put(id, RetentionPeriod.parse("relay.projects." + project.id() + ".retention",
                        project.retention()));
            }
        }
        // a project configured only for its service name, quotas or retention does not end open mode
        openMode = keysByProject.values().stream().allMatch(Set::isEmpty);
    }

    /**
     * The configured projects and, for each project id named only by environment variables
     * ({@code RELAY_PROJECTS_<ID>_KEYS}, {@code _SERVICE_NAME}, {@code _RATE_LIMITS_CHUNKS_PER_MINUTE},
     * {@code _RATE_LIMITS_BYTES_PER_MINUTE}, {@code _RETENTION}), its settings: containers are configured so, and Micronaut reads the
     * number in such a name as a list index and binds no {@code @EachProperty} entry from it.
     */
    static List<ProjectConfig> withEnvironmentProjects(List<ProjectConfig> configured, Map<String, String> variables) {
        Set<String> known = new HashSet<>();
        configured.forEach(project -> known.add(project.id()));
        Set<String> fromEnvironment = new TreeSet<>();
        for (String variable : variables.keySet()) {
            Matcher matcher = PROJECT_VARIABLE.matcher(variable);
            if (matcher.matches() && !known.contains(matcher.group(1))) {
                fromEnvironment.add(matcher.group(1));
            }
        }
        List<ProjectConfig> all = new ArrayList<>(configured);
        for (String id : fromEnvironment) {
            String prefix = "RELAY_PROJECTS_" + id + "_";
            String keys = variables.get(prefix + "KEYS");
            Long chunks = number(variables, prefix + "RATE_LIMITS_CHUNKS_PER_MINUTE");
            Long bytes = number(variables, prefix + "RATE_LIMITS_BYTES_PER_MINUTE");
            all.add(new ProjectConfig(id,
                    keys == null ? null : Arrays.stream(keys.split(",")).map(String::trim).filter(k -> !k.isEmpty())
                            .toList(),
                    variables.get(prefix + "SERVICE_NAME"),
                    chunks == null && bytes == null ? null : new ProjectConfig.RateLimits(chunks, bytes),
                    variables.get(prefix + "RETENTION")));
        }
        return all;
    }

    private static Long number(Map<String, String> variables, String name) {
        String value = variables.get(name);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigurationException(name + " must be a whole number, got '" + value + "'");
        }
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

    /** The project's own retention ({@code relay.projects.<id>.retention}), or null when it has none. */
    public Duration retention(long projectId) {
        return retentions.get(projectId);
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
