package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.Fixtures;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Feeds thousands of mutated chunks (type swaps, nulls, missing keys, huge and negative numbers, deep
 * nesting, duplicate keys, truncation, random bytes) through the processor with a fixed seed: each must
 * come back accepted with a consistent chunk or rejected with a reason and a detail, never an exception.
 */
class ChunkFuzzTest {
    private static final int ROUNDS = 4000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    @Test
    void everyMutatedChunkIsAcceptedOrRejectedWithAReasonNeverAnException() throws Exception {
        List<ObjectNode> seeds = new ArrayList<>();
        seeds.add(TestChunks.valid());
        for (String fixture : List.of("relay/sample_v2_valid.json", "vroomrs/sample__v2__valid_cocoa.json",
                "vroomrs/sample__v2__valid_android.json", "vroomrs/sample__v2__valid_python.json",
                "vroomrs/android__chunk__valid.json")) {
            seeds.add((ObjectNode) TestChunks.JSON.readTree(Fixtures.bytes(fixture)));
        }
        Random random = new Random(0x5EED_C0DEL);
        Map<ChunkRejectionReason, Integer> reasons = new EnumMap<>(ChunkRejectionReason.class);
        int acceptedCount = 0;
        for (int round = 0; round < ROUNDS; round++) {
            ObjectNode seed = seeds.get(random.nextInt(seeds.size())).deepCopy();
            byte[] payload = mutate(seed, random);
            ChunkItemHeader header = header(random);
            ChunkOutcome outcome;
            try {
                outcome = processor.process(payload, header);
            } catch (Throwable t) {
                throw new AssertionError("round " + round + " threw on " + preview(payload), t);
            }
            assertNotNull(outcome, "round " + round);
            if (outcome instanceof ChunkOutcome.Failed failed) {
                throw new AssertionError("round " + round + ": internal error on " + preview(payload), failed.cause());
            }
            if (outcome instanceof ChunkOutcome.Rejected rejected) {
                ChunkRejection rejection = rejected.rejection();
                assertNotNull(rejection.reason(), "round " + round);
                assertFalse(rejection.detail() == null || rejection.detail().isBlank(), "round " + round);
                reasons.merge(rejection.reason(), 1, Integer::sum);
            } else {
                assertConsistent(((ChunkOutcome.Accepted) outcome).chunk(), round);
                acceptedCount++;
            }
        }
        System.out.println("fuzz: " + ROUNDS + " chunks, " + acceptedCount + " accepted, rejected " + reasons);
        assertTrue(acceptedCount > 0, "some mutations keep the chunk valid");
        assertTrue(reasons.getOrDefault(ChunkRejectionReason.INVALID_JSON, 0) > ROUNDS / 10, "mostly schema errors");
        assertTrue(reasons.size() >= 5, "mutations reach several rules: " + reasons.keySet());
    }

    private static void assertConsistent(ProfileChunk chunk, int round) {
        for (int i = 0; i < chunk.sampleCount(); i++) {
            assertTrue(chunk.sampleStackId(i) < chunk.stackCount(), "round " + round);
            assertTrue(chunk.sampleThreadIndex(i) < chunk.threadCount(), "round " + round);
            if (i > 0) {
                assertTrue(chunk.sampleTimestampNanos(i - 1) <= chunk.sampleTimestampNanos(i), "round " + round);
            }
        }
        for (int s = 0; s < chunk.stackCount(); s++) {
            for (int d = 0; d < chunk.stackDepth(s); d++) {
                assertTrue(chunk.stackFrame(s, d) < chunk.frames().size(), "round " + round);
            }
        }
        for (String thread : chunk.threadMetadata().keySet()) {
            boolean sampled = false;
            for (int t = 0; t < chunk.threadCount(); t++) {
                sampled |= chunk.threadId(t).equals(thread);
            }
            assertTrue(sampled, "round " + round + ": metadata of unsampled thread " + thread);
        }
    }

    private static ChunkItemHeader header(Random random) {
        String platform = switch (random.nextInt(6)) {
            case 0 -> "cocoa";
            case 1 -> "python";
            case 2 -> "android";
            default -> null;
        };
        String contentType = random.nextInt(40) == 0 ? ChunkItemHeader.PERFETTO_CONTENT_TYPE : null;
        return new ChunkItemHeader(platform, contentType, random.nextInt(40) == 0 ? (long) random.nextInt(64) : null);
    }

    private static byte[] mutate(ObjectNode root, Random random) throws Exception {
        int treeMutations = 1 + random.nextInt(3);
        for (int i = 0; i < treeMutations; i++) {
            mutateTree(root, random);
        }
        byte[] bytes = TestChunks.JSON.writeValueAsBytes(root);
        return switch (random.nextInt(12)) {
            case 0 -> java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
            case 1 -> flipBytes(bytes, random);
            case 2 -> randomBytes(random);
            case 3 -> duplicateAKey(bytes, random);
            case 4 -> deepNesting(bytes, random);
            default -> bytes;
        };
    }

    /** Replaces, removes or wraps one value somewhere in the tree. */
    private static void mutateTree(JsonNode root, Random random) {
        List<JsonNode> containers = new ArrayList<>();
        collectContainers(root, containers, 0);
        JsonNode container = containers.get(random.nextInt(containers.size()));
        if (container instanceof ObjectNode object && object.size() > 0) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            String name = names.get(random.nextInt(names.size()));
            if (random.nextInt(4) == 0) {
                object.remove(name);
            } else {
                object.set(name, randomValue(random));
            }
        } else if (container instanceof ArrayNode array && array.size() > 0) {
            int index = random.nextInt(array.size());
            switch (random.nextInt(4)) {
                case 0 -> array.remove(index);
                case 1 -> array.add(array.get(index).deepCopy());
                default -> array.set(index, randomValue(random));
            }
        }
    }

    private static void collectContainers(JsonNode node, List<JsonNode> out, int depth) {
        if (!node.isContainerNode() || depth > 6) {
            return;
        }
        out.add(node);
        Iterator<JsonNode> children = node.elements();
        while (children.hasNext()) {
            collectContainers(children.next(), out, depth + 1);
        }
    }

    private static JsonNode randomValue(Random random) {
        return switch (random.nextInt(16)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.textNode("");
            case 2 -> NODES.textNode("0x" + Long.toHexString(random.nextLong()));
            case 3 -> NODES.textNode("4d229f1d-3807-421b-a62a-5f8bc295d836");
            case 4 -> NODES.numberNode(-1 - random.nextInt(1000));
            case 5 -> NODES.numberNode(new BigInteger(80, random));
            case 6 -> NODES.numberNode(new BigDecimal("1e400"));
            case 7 -> NODES.numberNode(random.nextDouble() * 1e10);
            case 8 -> NODES.numberNode(Long.MAX_VALUE);
            case 9 -> NODES.booleanNode(random.nextBoolean());
            case 10 -> NODES.objectNode().put("name", "x").put("version", "2");
            case 11 -> NODES.arrayNode().add(random.nextInt(5)).add(random.nextInt(5));
            case 12 -> NODES.numberNode(random.nextInt(4));
            case 13 -> NODES.textNode("2");
            case 14 -> NODES.objectNode().set("values", NODES.arrayNode().add(NODES.objectNode().put("timestamp", 1.5)));
            default -> NODES.numberNode(1710805688.5 + random.nextInt(100));
        };
    }

    private static byte[] flipBytes(byte[] bytes, Random random) {
        byte[] out = bytes.clone();
        for (int i = 0; i < 1 + random.nextInt(4) && out.length > 0; i++) {
            out[random.nextInt(out.length)] = (byte) random.nextInt(256);
        }
        return out;
    }

    private static byte[] randomBytes(Random random) {
        byte[] out = new byte[random.nextInt(200)];
        random.nextBytes(out);
        if (out.length > 0 && random.nextBoolean()) {
            out[0] = '{';
        }
        return out;
    }

    private static byte[] duplicateAKey(byte[] bytes, Random random) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        String[] keys = {"\"platform\":", "\"chunk_id\":", "\"stack_id\":", "\"samples\":", "\"name\":", "\"lineno\":"};
        String key = keys[random.nextInt(keys.length)];
        int at = text.indexOf(key);
        if (at < 0) {
            return bytes;
        }
        int valueEnd = text.indexOf(',', at);
        if (valueEnd < 0) {
            return bytes;
        }
        String pair = text.substring(at, valueEnd + 1);
        return (text.substring(0, at) + pair + text.substring(at)).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] deepNesting(byte[] bytes, Random random) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        int depth = 100 + random.nextInt(5000);
        String deep = "[".repeat(depth) + "]".repeat(random.nextInt(4) == 0 ? depth / 2 : depth);
        return ("{\"deep\":" + deep + "," + text.substring(Math.min(1, text.length()))).getBytes(StandardCharsets.UTF_8);
    }

    private static String preview(byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }
}
