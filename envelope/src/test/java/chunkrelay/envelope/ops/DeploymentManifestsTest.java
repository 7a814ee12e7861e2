package chunkrelay.envelope.ops;

import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.translate.export.OtlpExportSettings;
import io.micronaut.context.annotation.Value;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The files in {@code deploy/} cannot drift from the relay silently: the Kubernetes manifests parse, their probes
 * name paths the relay answers on the port its configuration listens on, the Service reaches that port, the
 * shutdown allowance outlasts the relay's own, every relay variable they set is a documented one, and the image
 * exposes the same port.
 */
@MicronautTest
class DeploymentManifestsTest {
    private static final Path DEPLOY = repositoryRoot().resolve("deploy");

    @Inject
    EmbeddedServer server;

    @Value("${micronaut.lifecycle.graceful-shutdown.grace-period}")
    Duration gracePeriod;

    @Test
    void probesNamePathsTheRelayAnswersOnThePortItsConfigurationListensOn() throws Exception {
        Map<String, Object> relay = container(deployment(), "relay");
        int port = configuredPort();
        Map<String, Object> http = ports(relay).get(0);
        assertEquals("http", http.get("name"));
        assertEquals(port, http.get("containerPort"));
        assertEquals(Integer.toString(port), env(relay).get("MICRONAUT_SERVER_PORT"));

        Map<String, String> probes = Map.of("startupProbe", "/health/liveness", "livenessProbe", "/health/liveness",
                "readinessProbe", "/health/readiness");
        for (Map.Entry<String, String> probe : probes.entrySet()) {
            Map<String, Object> get = map(map(relay.get(probe.getKey())).get("httpGet"));
            assertEquals(probe.getValue(), get.get("path"), probe.getKey());
            assertEquals("http", get.get("port"), probe.getKey() + " uses the named container port");
            RelayClient.Answer answer = new RelayClient(server.getURI()).get(probe.getValue());
            assertEquals(200, answer.status(), probe.getKey() + " " + probe.getValue() + ": " + answer.raw());
        }
        assertTrue(map(relay.get("resources")).containsKey("requests"));
        assertTrue(map(relay.get("resources")).containsKey("limits"));
    }

    @Test
    void theServiceReachesTheContainerPort() throws Exception {
        Map<String, Object> service = document("chunk-relay.yaml", "Service");
        Map<String, Object> port = list(map(service.get("spec")).get("ports")).get(0);
        assertEquals("http", port.get("targetPort"));
        assertEquals(map(map(map(deployment().get("spec")).get("selector")).get("matchLabels")),
                map(map(service.get("spec")).get("selector")));
    }

    @Test
    void podsAreGivenLongerToStopThanTheRelayTakesToShutDownGracefully() throws Exception {
        Map<String, Object> pod = map(map(deployment().get("spec")).get("template"));
        int allowed = (Integer) map(pod.get("spec")).get("terminationGracePeriodSeconds");
        long relayNeeds = gracePeriod.plus(OtlpExportSettings.DEFAULT_DRAIN_TIMEOUT).toSeconds();
        assertTrue(allowed > relayNeeds + 5, "terminationGracePeriodSeconds " + allowed + " <= requests in flight "
                + gracePeriod.toSeconds() + " s + queue drain + the 5 s preStop");
        Map<String, Object> preStop = map(map(container(deployment(), "relay").get("lifecycle")).get("preStop"));
        assertEquals(List.of("sleep", "5"), map(preStop.get("exec")).get("command"));
    }

    @Test
    void everyRelayVariableTheManifestsSetIsInTheConfigurationReference() throws Exception {
        String reference = Files.readString(repositoryRoot().resolve("docs").resolve("configuration.md"));
        Map<String, String> env = env(container(deployment(), "relay"));
        assertTrue(env.containsKey("RELAY_REDIS_URI") && env.containsKey("RELAY_STORAGE_S3_BUCKET"));
        for (String name : env.keySet()) {
            assertTrue(reference.contains("`" + name + "`"),
                    name + " is not in docs/configuration.md");
        }
        Map<String, Object> redis = document("redis.yaml", "Service");
        int redisPort = (Integer) list(map(redis.get("spec")).get("ports")).get(0).get("port");
        assertEquals("redis://" + map(redis.get("metadata")).get("name") + ":" + redisPort, env.get("RELAY_REDIS_URI"));
    }

    @Test
    void theImageRunsTheRelayJarAndExposesTheConfiguredPort() throws Exception {
        String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
        Matcher from = Pattern.compile("(?m)^FROM (\\S+)").matcher(dockerfile);
        assertTrue(from.find());
        assertEquals("eclipse-temurin:17-jre", from.group(1));
        Matcher expose = Pattern.compile("(?m)^EXPOSE (\\d+)").matcher(dockerfile);
        assertTrue(expose.find());
        assertEquals(configuredPort(), Integer.parseInt(expose.group(1)));
        Matcher copy = Pattern.compile("(?m)^COPY (\\S+) ").matcher(dockerfile);
        assertTrue(copy.find());
        String version = new String(getClass().getResourceAsStream("/chunk-relay-version.txt").readAllBytes()).trim();
        assertEquals("envelope/target/envelope-" + version + ".jar", copy.group(1));
    }

    /** {@code micronaut.server.port} of the relay's own application.yml (tests run on a random port). */
    private static int configuredPort() throws IOException {
        try (InputStream in = DeploymentManifestsTest.class.getResourceAsStream("/application.yml")) {
            assertNotNull(in);
            Map<String, Object> yaml = new Yaml().load(in);
            return (Integer) map(map(yaml.get("micronaut")).get("server")).get("port");
        }
    }

    private static Map<String, Object> deployment() throws IOException {
        return document("chunk-relay.yaml", "Deployment");
    }

    private static Map<String, Object> document(String file, String kind) throws IOException {
        List<Map<String, Object>> found = new ArrayList<>();
        for (Object document : new Yaml().loadAll(Files.readString(DEPLOY.resolve("kubernetes").resolve(file)))) {
            if (kind.equals(map(document).get("kind"))) {
                found.add(map(document));
            }
        }
        assertEquals(1, found.size(), "one " + kind + " in " + file);
        return found.get(0);
    }

    private static Map<String, Object> container(Map<String, Object> deployment, String name) {
        Map<String, Object> pod = map(map(map(deployment.get("spec")).get("template")).get("spec"));
        return list(pod.get("containers")).stream().filter(c -> name.equals(c.get("name"))).findFirst().orElseThrow();
    }

    private static List<Map<String, Object>> ports(Map<String, Object> container) {
        return list(container.get("ports"));
    }

    private static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new LinkedHashMap<>();
        for (Map<String, Object> variable : list(container.get("env"))) {
            env.put((String) variable.get("name"), (String) variable.get("value"));
        }
        return env;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object node) {
        assertTrue(node instanceof Map, "expected a mapping, got " + node);
        return (Map<String, Object>) node;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object node) {
        assertTrue(node instanceof List, "expected a list, got " + node);
        return (List<Map<String, Object>>) node;
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("deploy"))) {
            dir = dir.getParent();
        }
        assertNotNull(dir, "no deploy/ folder above " + Path.of("").toAbsolutePath());
        return dir;
    }
}
