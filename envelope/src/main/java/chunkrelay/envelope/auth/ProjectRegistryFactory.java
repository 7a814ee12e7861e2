package chunkrelay.envelope.auth;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.util.List;

/** The relay's projects: those of its configuration and those given only as environment variables. */
@Factory
public class ProjectRegistryFactory {

    @Singleton
    ProjectRegistry projectRegistry(List<ProjectConfig> configured) {
        return new ProjectRegistry(ProjectRegistry.withEnvironmentProjects(configured, System.getenv()));
    }
}
