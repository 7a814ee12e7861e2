package chunkrelay.envelope.health;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedItem;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the health tests send: every recorded SDK request as recorded, a chunk of the recorded Node SDK's with a
 * sample on a thread of its own (dropped by normalisation) under another SDK version, and one invalid chunk for each
 * of eight of Relay's reasons, with SDKs named by the payload, by the envelope only, or by neither; and transactions
 * of the recorded Python SDK's naming profiler sessions whose chunks are withheld (silent sessions). Each is counted
 * into {@link SentChunks} by what the test made it, from the JSON sent.
 */
final class HealthSends {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One envelope to send: its bytes, and how it counts. */
    record Send(String name, Function<RelayClient, RelayClient.Answer> post, Runnable count) {
    }

    private HealthSends() {
    }

    static List<Send> all(SentChunks expected) {
        List<Send> sends = new ArrayList<>();
        List<RecordedItem> items = Fixtures.sdkItems();
        for (SdkRequest request : Fixtures.sdkRequests()) {
            JsonNode envelopeHeader = envelopeHeader(request.envelope());
            List<RecordedItem> chunks = items.stream()
                    .filter(i -> i.request().equals(request.name()) && i.type().startsWith("profile_chunk")).toList();
            List<RecordedItem> spans = items.stream()
                    .filter(i -> i.request().equals(request.name()) && List.of("transaction", "span").contains(i.type()))
                    .toList();
            sends.add(new Send(request.name(), client -> client.replay(request), () -> {
                chunks.forEach(c -> expected.accepted(envelopeHeader, c.itemHeader(), c.payload()));
                spans.forEach(s -> expected.spans(envelopeHeader, s.type(), s.payload()));
            }));
        }

        RecordedItem python = items.stream()
                .filter(i -> i.request().startsWith("python-2.75.0/") && i.type().equals("transaction"))
                .findFirst().orElseThrow();
        for (int session = 1; session <= 2; session++) {
            for (int transaction = 0; transaction < session + 1; transaction++) {
                ObjectNode named = tree(python.payload());
                named.put("event_id", String.format("%032x", session * 100 + transaction));
                ((ObjectNode) named.path("contexts").path("profile"))
                        .put("profiler_id", String.format("5113e7%026x", session));
                byte[] payload = bytes(named);
                byte[] envelope = Envelopes.withItem("{}", "{\"type\":\"transaction\",\"length\":"
                        + payload.length + "}", payload);
                sends.add(new Send("a transaction of withheld session " + session,
                        client -> client.post(Envelopes.PATH, envelope, "X-Sentry-Auth", Envelopes.AUTH),
                        () -> expected.spans(tree(Envelopes.bytes("{}")), "transaction", payload)));
            }
        }

        byte[] node = Fixtures.sdkChunks().stream().filter(c -> c.request().startsWith("node-11.1.0/"))
                .findFirst().orElseThrow().payload();
        String nodeSdk = "{\"sdk\":{\"name\":\"sentry.javascript.node\",\"version\":\"11.1.0\"}}";
        String testSdk = "{\"sdk\":{\"name\":\"test\",\"version\":\"1.0\"}}";

        ObjectNode lonely = tree(node);
        lonely.put("chunk_id", "0123456789abcdef0123456789abcdef");
        ((ObjectNode) lonely.path("client_sdk")).put("version", "11.2.0");
        ArrayNode samples = (ArrayNode) lonely.path("profile").path("samples");
        samples.addObject().put("stack_id", 0).put("thread_id", "999999")
                .set("timestamp", samples.get(0).path("timestamp"));
        sends.add(chunk("a thread with one sample", nodeSdk, "{\"type\":\"profile_chunk\",\"platform\":\"node\"}",
                bytes(lonely), null, expected));

        sends.add(chunk("not JSON, SDK from the envelope", nodeSdk, "{\"type\":\"profile_chunk\",\"platform\":\"node\"}",
                Envelopes.bytes("{\"chunk_id\":"), "profiling_invalid_json", expected));
        sends.add(chunk("not an object, no platform", testSdk, "{\"type\":\"profile_chunk\"}",
                Envelopes.bytes("[1,2,3]"), "profiling_invalid_json", expected));
        sends.add(chunk("no SDK anywhere", "{}", "{\"type\":\"profile_chunk\"}", Envelopes.bytes("{}"),
                "profiling_invalid_json", expected));
        sends.add(chunk("header and payload platforms differ", testSdk,
                "{\"type\":\"profile_chunk\",\"platform\":\"python\"}", node, "profiling_invalid_profile_type",
                expected));
        sends.add(chunk("version 1", nodeSdk, "{\"type\":\"profile_chunk\",\"platform\":\"node\"}",
                Envelopes.bytes(new String(node, StandardCharsets.UTF_8).replace("\"version\":\"2\"",
                        "\"version\":\"1\"")), "profiling_platform_not_supported", expected));
        sends.add(chunk("meta_length on JSON", nodeSdk,
                "{\"type\":\"profile_chunk\",\"platform\":\"node\",\"meta_length\":10}", node,
                "profiling_invalid_sampled_profile", expected));
        sends.add(chunk("a single sample", testSdk, "{\"type\":\"profile_chunk\",\"platform\":\"python\"}",
                Fixtures.bytes("vroomrs/sample__v2__valid_python.json"), "profiling_not_enough_samples", expected));

        ObjectNode tooLong = tree(node);
        JsonNode last = tooLong.path("profile").path("samples").get(tooLong.path("profile").path("samples").size() - 1);
        ((ObjectNode) last).put("timestamp", last.path("timestamp").asDouble() + 100);
        sends.add(chunk("100 s of samples", nodeSdk, "{\"type\":\"profile_chunk\",\"platform\":\"node\"}",
                bytes(tooLong), "profiling_duration_is_too_long", expected));

        ObjectNode malformed = tree(node);
        int stacks = malformed.path("profile").path("stacks").size();
        ((ObjectNode) malformed.path("profile").path("samples").get(0)).put("stack_id", stacks + 5);
        sends.add(chunk("a stack that does not exist", nodeSdk, "{\"type\":\"profile_chunk\",\"platform\":\"node\"}",
                bytes(malformed), "profiling_malformed_samples", expected));
        return sends;
    }

    /** Sends each, checking the 200, and counts each as sent. */
    static void send(List<Send> sends, Function<Integer, RelayClient> clientOf) {
        for (int i = 0; i < sends.size(); i++) {
            Send send = sends.get(i);
            assertEquals(200, send.post().apply(clientOf.apply(i)).status(), send.name());
            send.count().run();
        }
    }

    /** One chunk in an envelope; {@code reason} null for a chunk the relay is to accept. */
    private static Send chunk(String name, String envelopeHeader, String itemHeader, byte[] payload, String reason,
                              SentChunks expected) {
        ObjectNode item = (ObjectNode) tree(Envelopes.bytes(itemHeader));
        item.put("length", payload.length);
        byte[] envelope = Envelopes.withItem(envelopeHeader, item.toString(), payload);
        JsonNode header = tree(Envelopes.bytes(envelopeHeader));
        return new Send(name, client -> client.post(Envelopes.PATH, envelope, "X-Sentry-Auth", Envelopes.AUTH), () -> {
            if (reason == null) {
                expected.accepted(header, item, payload);
            } else {
                expected.rejected(header, item, payload, reason);
            }
        });
    }

    private static JsonNode envelopeHeader(byte[] envelope) {
        int end = 0;
        while (end < envelope.length && envelope[end] != '\n') {
            end++;
        }
        return tree(Arrays.copyOf(envelope, end));
    }

    private static ObjectNode tree(byte[] json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(JsonNode json) {
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }
}
