package chunkrelay.chunk;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.UncheckedIOException;

/** Builds Sample Format V2 chunks for tests: a small valid one, and samples to add to it. */
final class TestChunks {
    static final ObjectMapper JSON = new ObjectMapper();

    private TestChunks() {
    }

    /**
     * A valid python chunk: frames f0, f1; stacks [0,1] and [1]; thread "1" with 3 samples at
     * 100.0, 100.01, 100.02 s, thread metadata for "1" and for "9" (which has no samples).
     */
    static ObjectNode valid() {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", "2");
        root.put("chunk_id", "0432a0a4c25f4697bf9f0a2fcbe6a814");
        root.put("profiler_id", "4d229f1d3807421ba62a5f8bc295d836");
        root.put("platform", "python");
        root.put("release", "app@1.0");
        root.put("environment", "test");
        root.putObject("client_sdk").put("name", "sentry.python").put("version", "2.0.0");
        ObjectNode profile = root.putObject("profile");
        ArrayNode frames = profile.putArray("frames");
        frames.addObject().put("function", "f0").put("filename", "a.py").put("lineno", 1).put("in_app", true);
        frames.addObject().put("function", "f1").put("module", "m").put("abs_path", "/srv/a.py");
        ArrayNode stacks = profile.putArray("stacks");
        stacks.addArray().add(0).add(1);
        stacks.addArray().add(1);
        ArrayNode samples = profile.putArray("samples");
        addSample(samples, 100.0, "1", 0);
        addSample(samples, 100.01, "1", 1);
        addSample(samples, 100.02, "1", 0);
        ObjectNode threads = profile.putObject("thread_metadata");
        threads.putObject("1").put("name", "main").put("priority", 31);
        threads.putObject("9").put("name", "idle");
        return root;
    }

    static ObjectNode sample(double timestamp, String thread, long stackId) {
        return JSON.createObjectNode().put("timestamp", timestamp).put("thread_id", thread).put("stack_id", stackId);
    }

    static void addSample(ArrayNode samples, double timestamp, String thread, long stackId) {
        samples.add(sample(timestamp, thread, stackId));
    }

    static ObjectNode profile(ObjectNode root) {
        return (ObjectNode) root.get("profile");
    }

    static ArrayNode samples(ObjectNode root) {
        return (ArrayNode) profile(root).get("samples");
    }

    static ArrayNode frames(ObjectNode root) {
        return (ArrayNode) profile(root).get("frames");
    }

    static ArrayNode stacks(ObjectNode root) {
        return (ArrayNode) profile(root).get("stacks");
    }

    static byte[] bytes(ObjectNode root) {
        try {
            return JSON.writeValueAsBytes(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
