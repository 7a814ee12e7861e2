package chunkrelay.envelope.auth;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A project's own retention, from configuration or the environment; setting it alone keeps open mode. */
class ProjectRetentionTest {

    @Test
    void aProjectWithOnlyARetentionLeavesOpenModeOn() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.projects.3.retention", "10d",
                "relay.projects.4.retention", "0"))) {
            ProjectRegistry projects = context.getBean(ProjectRegistry.class);
            assertTrue(projects.openMode());
            assertEquals(Duration.ofDays(10), projects.retention(3));
            assertEquals(Duration.ZERO, projects.retention(4), "0 keeps forever, not the default");
            assertNull(projects.retention(1));
            assertDoesNotThrow(() -> projects.authorize(3, "ffffffffffffffffffffffffffffffff"));
            assertDoesNotThrow(() -> projects.authorize(1, "ffffffffffffffffffffffffffffffff"));
        }
    }

    @Test
    void keysStillEndOpenModeBesideARetention() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.projects.3.retention", "10d",
                "relay.projects.1.keys", List.of("c0ffee5e1ec7ab1e5a11ab1e0b5e55ed")))) {
            assertFalse(context.getBean(ProjectRegistry.class).openMode());
        }
    }

    @Test
    void aRetentionFromTheEnvironmentIsReadAndAWrongOneRefused() {
        List<ProjectConfig> projects = ProjectRegistry.withEnvironmentProjects(List.of(),
                Map.of("RELAY_PROJECTS_5_RETENTION", "7d"));
        ProjectRegistry registry = new ProjectRegistry(projects);
        assertEquals(Duration.ofDays(7), registry.retention(5));
        assertTrue(registry.openMode());

        List<ProjectConfig> wrong = ProjectRegistry.withEnvironmentProjects(List.of(),
                Map.of("RELAY_PROJECTS_5_RETENTION", "a week"));
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> new ProjectRegistry(wrong));
        assertTrue(e.getMessage().contains("relay.projects.5.retention"), e.getMessage());
    }
}
