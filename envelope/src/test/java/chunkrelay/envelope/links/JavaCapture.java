package chunkrelay.envelope.links;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedItem;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The recorded Java capture (two chunks and the transaction between them) and what its links should be. */
final class JavaCapture {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String JAVA_CHUNK_1 = "java-8.43.0/001";
    static final String JAVA_TRANSACTION = "java-8.43.0/002";
    static final String JAVA_CHUNK_2 = "java-8.43.0/003";
    /** Main-thread samples inside the recorded transaction (trace-links research note, section 4). */
    static final Map<String, Integer> JAVA_LINKED = Map.of(JAVA_CHUNK_1, 965, JAVA_CHUNK_2, 469);

    static void send(RelayClient client, String request) {
        RelayClient.Answer answer = client.replay(Fixtures.sdkRequest(request));
        assertEquals(200, answer.status(), request + ": " + answer.raw());
    }

    static String chunkId(String request) {
        try {
            return JSON.readTree(Fixtures.sdkChunks().stream().filter(c -> c.request().equals(request))
                    .findFirst().orElseThrow().payload()).path("chunk_id").asText();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static List<SpanRecord> spansOf(String request) {
        List<SpanRecord> spans = new ArrayList<>();
        for (RecordedItem item : Fixtures.sdkItems()) {
            if (item.request().equals(request) && SpanItems.carriesSpans(item.type())) {
                spans.addAll(SpanItems.read(item.type(), item.payload()).spans());
            }
        }
        return spans;
    }

    /** The OTLP form of each derived chunk, by the request that carried the chunk. */
    static Map<String, ExportProfilesServiceRequest> derived(ChunkArchive archive, List<ArchivedChunk> chunks,
                                                                     String... requests) throws IOException {
        Map<String, ExportProfilesServiceRequest> byRequest = new TreeMap<>();
        for (String request : requests) {
            ArchivedChunk chunk = chunks.stream().filter(c -> c.key().chunkId().equals(chunkId(request)))
                    .findFirst().orElseThrow(() -> new AssertionError(request + "'s chunk is not derived"));
            byRequest.put(request, ExportProfilesServiceRequest.parseFrom(archive.readOtlp(chunk)));
        }
        return byRequest;
    }

    /** Linked samples by span id; fails when a linked sample is not on {@code thread}. */
    static Map<String, Integer> linkedBySpan(ExportProfilesServiceRequest request, long thread) {
        ProfilesDictionary dictionary = request.getDictionary();
        Map<String, Integer> counts = new TreeMap<>();
        Profile profile = request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        for (Sample sample : profile.getSamplesList()) {
            if (sample.getLinkIndex() == 0) {
                continue;
            }
            Link link = dictionary.getLinkTable(sample.getLinkIndex());
            counts.merge(HexFormat.of().formatHex(link.getSpanId().toByteArray()), sample.getTimestampsUnixNanoCount(),
                    Integer::sum);
            long sampleThread = sample.getAttributeIndicesList().stream().map(dictionary::getAttributeTable)
                    .filter(a -> dictionary.getStringTable(a.getKeyStrindex()).equals("thread.id"))
                    .mapToLong(a -> a.getValue().getIntValue()).findFirst().orElse(-1);
            assertEquals(thread, sampleThread, "a linked sample of another thread");
        }
        return counts;
    }

    static long profileAttribute(ExportProfilesServiceRequest request, String key) {
        ProfilesDictionary dictionary = request.getDictionary();
        Profile profile = request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        for (int index : profile.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            if (dictionary.getStringTable(attribute.getKeyStrindex()).equals(key)) {
                return attribute.getValue().getIntValue();
            }
        }
        return -1;
    }

    /** Linked samples (main thread) by the chunk each received request carried. */
    static Map<String, Integer> linkedByChunk(OtlpReceiver receiver) {
        Map<String, Integer> linked = new HashMap<>();
        for (OtlpReceiver.Received received : receiver.received()) {
            String chunk = HexFormat.of().formatHex(received.request().getResourceProfiles(0).getScopeProfiles(0)
                    .getProfiles(0).getProfileId().toByteArray());
            linked.put(chunk, linkedBySpan(received.request(), 1).values().stream().mapToInt(Integer::intValue).sum());
        }
        return linked;
    }

    private JavaCapture() {
    }
}
