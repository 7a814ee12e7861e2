package chunkrelay.envelope.ops;

import chunkrelay.envelope.auth.ProjectConfig;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.auth.RedisQuotaConfig;
import chunkrelay.envelope.ingest.RelayLimits;
import chunkrelay.envelope.pipeline.DuplicateConfig;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.ForkedRelay;
import chunkrelay.envelope.testing.RelayClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The environment-variable forms the configuration reference documents bind to the relay's keys. */
@Tag("external")
class EnvironmentVariableConfigTest {

    @Test
    void bindsProjectsQuotasLimitsAndRedisFromEnvironmentVariables() {
        PropertySource environment = PropertySource.of("env", Map.of(
                "RELAY_PROJECTS_42_KEYS", "c0ffee5e1ec7ab1e5a11ab1e0b5e55ed,0123456789abcdef0123456789abcdef",
                "RELAY_PROJECTS_42_SERVICE_NAME", "checkout",
                "RELAY_PROJECTS_42_RATE_LIMITS_CHUNKS_PER_MINUTE", "600",
                "RELAY_PROJECTS_42_RATE_LIMITS_BYTES_PER_MINUTE", "1073741824",
                "RELAY_LIMITS_MAX_BUFFERED_CHUNK_BYTES", "1048576",
                "RELAY_DUPLICATES_EXPIRE_AFTER", "5m",
                "RELAY_REDIS_URI", "redis://redis:6379",
                "RELAY_REDIS_COMMAND_TIMEOUT", "100ms"), PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE);
        try (ApplicationContext context = ApplicationContext.builder().propertySources(environment).start()) {
            ProjectRegistry projects = context.getBean(ProjectRegistry.class);
            assertEquals(List.of(42L), List.copyOf(projects.projectIds()));
            assertFalse(projects.openMode());
            assertEquals("checkout", projects.serviceName(42));
            assertEquals(new ProjectConfig.RateLimits(600L, 1073741824L), projects.rateLimits(42));
            assertEquals(1048576, context.getBean(RelayLimits.class).maxBufferedChunkBytes());
            assertEquals(Duration.ofMinutes(5), context.getBean(DuplicateConfig.class).expireAfter());
            RedisQuotaConfig redis = context.getBean(RedisQuotaConfig.class);
            assertEquals("redis://redis:6379", redis.uri());
            assertEquals(Duration.ofMillis(100), redis.commandTimeout());
        }
    }

    @Test
    void projectsGivenOnlyAsEnvironmentVariablesBindInTheRelaysOwnProcess(@TempDir Path work) throws Exception {
        try (ForkedRelay relay = ForkedRelay.start(256, work, Map.of(
                "RELAY_PROJECTS_42_KEYS", Envelopes.KEY,
                "RELAY_PROJECTS_42_RATE_LIMITS_CHUNKS_PER_MINUTE", "600"))) {
            RelayClient client = new RelayClient(relay.base());
            byte[] envelope = Envelopes.bytes(Envelopes.header() + "\n");
            assertEquals(200, client.post("/api/42/envelope/", envelope, "X-Sentry-Auth", auth(Envelopes.KEY))
                    .status());
            assertEquals(401, client.post("/api/42/envelope/", envelope, "X-Sentry-Auth", auth(Envelopes.OTHER_KEY))
                    .status(), "not open mode: another key is refused");
            assertEquals(401, client.post("/api/1/envelope/", envelope, "X-Sentry-Auth", auth(Envelopes.KEY))
                    .status(), "an unconfigured project is refused");
            assertTrue(relay.log().contains("projects [42] from relay.projects"), relay.log());
        }
    }

    private static String auth(String key) {
        return "Sentry sentry_version=7,sentry_client=test/1.0,sentry_key=" + key;
    }
}
