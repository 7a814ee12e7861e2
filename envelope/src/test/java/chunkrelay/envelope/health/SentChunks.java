package chunkrelay.envelope.health;

import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The test's own count of the chunks it sent, per SDK, from the JSON it sent: the SDK is the payload's
 * {@code client_sdk} when the payload reads as JSON with one, else the envelope header's {@code sdk}; the platform
 * the item header's, else the payload's; a sample is dropped when its thread has fewer than 2 samples on a stack that
 * exists and is not empty. A transaction names the profiler id of its {@code contexts.profile} (else of
 * {@code contexts.trace.data}), counted under the transaction's {@code sdk} (else the envelope's) and platform; a span
 * item's segment its {@code sentry.profiler_id} attribute, under the envelope's SDK and platform {@code unknown}; a
 * named id is silent when no accepted chunk, of any SDK, came from it.
 */
final class SentChunks {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One SDK's expected row, as the answer's JSON has it (maps without zero entries). */
    record Row(long chunks, Map<String, Long> rejected, long samples, Map<String, Long> samplesDropped,
               long sessions, long transactions, long silentSessions, long transactionsSilent) {
    }

    private final Map<String, Long> chunks = new TreeMap<>();
    private final Map<String, Map<String, Long>> rejected = new TreeMap<>();
    private final Map<String, Long> samples = new TreeMap<>();
    private final Map<String, Map<String, Long>> dropped = new TreeMap<>();
    private final Map<String, Set<String>> sessions = new HashMap<>();
    /** Per SDK, per profiler id named, the transactions naming it. */
    private final Map<String, Map<String, Long>> named = new HashMap<>();
    /** The SDK of each accepted chunk, by chunk id as the archive names it. */
    private final Map<String, String> sdkOfChunk = new HashMap<>();

    /** One SDK's samples linked to spans and linkable, as its chunks' archived OTLP forms hold them. */
    record Links(long linkedSamples, long linkableSamples) {
    }

    /** A transaction or span item the relay is to read. */
    void spans(JsonNode envelopeHeader, String type, byte[] payload) {
        JsonNode document = read(payload);
        if (type.equals("transaction")) {
            JsonNode id = document.path("contexts").path("profile").path("profiler_id");
            if (!id.isTextual()) {
                id = document.path("contexts").path("trace").path("data").path("profiler_id");
            }
            JsonNode sdk = document.path("sdk").path("name").isTextual() ? document.path("sdk")
                    : envelopeHeader.path("sdk");
            if (id.isTextual()) {
                name(sdk.path("name").asText("unknown") + " " + sdk.path("version").asText("unknown") + " "
                        + document.path("platform").asText("unknown"), id.asText());
            }
        } else if (type.equals("span")) {
            JsonNode sdk = envelopeHeader.path("sdk");
            for (JsonNode span : document.path("items")) {
                JsonNode id = span.path("attributes").path("sentry.profiler_id").path("value");
                if (span.path("is_segment").asBoolean(false) && id.isTextual()) {
                    name(sdk.path("name").asText("unknown") + " " + sdk.path("version").asText("unknown")
                            + " unknown", id.asText());
                }
            }
        }
    }

    private void name(String sdk, String profilerId) {
        named.computeIfAbsent(sdk, s -> new TreeMap<>()).merge(profilerId.replace("-", ""), 1L, Long::sum);
    }

    /** A chunk the relay is to accept. */
    void accepted(JsonNode envelopeHeader, JsonNode itemHeader, byte[] payload) {
        JsonNode chunk = read(payload);
        String sdk = sdkOf(envelopeHeader, itemHeader, chunk);
        chunks.merge(sdk, 1L, Long::sum);
        JsonNode profile = chunk.path("profile");
        samples.merge(sdk, (long) profile.path("samples").size(), Long::sum);
        long lonely = lonelySamples(profile);
        if (lonely > 0) {
            dropped.computeIfAbsent(sdk, s -> new TreeMap<>()).merge("thread_with_fewer_than_two_samples", lonely,
                    Long::sum);
        }
        sessions.computeIfAbsent(sdk, s -> new HashSet<>()).add(chunk.path("profiler_id").asText().replace("-", ""));
        sdkOfChunk.put(chunk.path("chunk_id").asText().replace("-", "").toLowerCase(Locale.ROOT), sdk);
    }

    /**
     * Per SDK, by "sdk version platform", the samples of its chunks' archived OTLP forms that link to a span (a
     * sample with a link, counted by its timestamps) and those a span covers: the linked ones and those the form's
     * {@code sentry.profile.samples_ambiguous} attribute counts. SDKs whose chunks have no linkable sample are left
     * out.
     */
    Map<String, Links> links(RunningRelay relay) throws IOException {
        Map<String, long[]> counts = new TreeMap<>();
        for (ArchivedChunk archived : relay.archivedChunks()) {
            String sdk = sdkOfChunk.get(archived.key().chunkId());
            if (sdk == null) {
                throw new AssertionError("an archived chunk the test did not send: " + archived.key().stem());
            }
            ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(relay.archive()
                    .readOtlp(archived));
            ProfilesDictionary dictionary = otlp.getDictionary();
            long[] sdkCounts = counts.computeIfAbsent(sdk, k -> new long[2]);
            for (var resource : otlp.getResourceProfilesList()) {
                for (var scope : resource.getScopeProfilesList()) {
                    for (Profile profile : scope.getProfilesList()) {
                        long linked = profile.getSamplesList().stream().filter(sample -> sample.getLinkIndex() != 0)
                                .mapToLong(Sample::getTimestampsUnixNanoCount).sum();
                        sdkCounts[0] += linked;
                        sdkCounts[1] += linked + ambiguous(dictionary, profile);
                    }
                }
            }
        }
        Map<String, Links> links = new TreeMap<>();
        counts.forEach((sdk, c) -> {
            if (c[1] > 0) {
                links.put(sdk, new Links(c[0], c[1]));
            }
        });
        return links;
    }

    private static long ambiguous(ProfilesDictionary dictionary, Profile profile) {
        for (int index : profile.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            if (dictionary.getStringTable(attribute.getKeyStrindex()).equals("sentry.profile.samples_ambiguous")) {
                return attribute.getValue().getIntValue();
            }
        }
        return 0;
    }

    /** An answer's linked and linkable samples in the same form, SDKs with none left out. */
    static Map<String, Links> links(JsonNode answer) {
        Map<String, Links> links = new TreeMap<>();
        for (JsonNode sdk : answer.path("sdks")) {
            if (sdk.path("linkableSamples").asLong() > 0 || sdk.path("linkedSamples").asLong() > 0) {
                links.put(sdk.path("sdk").asText() + " " + sdk.path("version").asText() + " "
                        + sdk.path("platform").asText(), new Links(sdk.path("linkedSamples").asLong(),
                        sdk.path("linkableSamples").asLong()));
            }
        }
        return links;
    }

    /** A chunk the relay is to refuse for {@code reason}. */
    void rejected(JsonNode envelopeHeader, JsonNode itemHeader, byte[] payload, String reason) {
        String sdk = sdkOf(envelopeHeader, itemHeader, read(payload));
        rejected.computeIfAbsent(sdk, s -> new TreeMap<>()).merge(reason, 1L, Long::sum);
    }

    /** Every SDK's row, by "sdk version platform". */
    Map<String, Row> rows() {
        Set<String> sdks = new java.util.TreeSet<>(chunks.keySet());
        sdks.addAll(rejected.keySet());
        sdks.addAll(named.keySet());
        Set<String> withChunks = new HashSet<>();
        sessions.values().forEach(withChunks::addAll);
        Map<String, Row> rows = new TreeMap<>();
        for (String sdk : sdks) {
            Map<String, Long> ids = named.getOrDefault(sdk, Map.of());
            long silent = ids.keySet().stream().filter(id -> !withChunks.contains(id)).count();
            long transactionsSilent = ids.entrySet().stream().filter(id -> !withChunks.contains(id.getKey()))
                    .mapToLong(Map.Entry::getValue).sum();
            rows.put(sdk, new Row(chunks.getOrDefault(sdk, 0L), rejected.getOrDefault(sdk, Map.of()),
                    samples.getOrDefault(sdk, 0L), dropped.getOrDefault(sdk, Map.of()),
                    sessions.getOrDefault(sdk, Set.of()).size(),
                    ids.values().stream().mapToLong(Long::longValue).sum(), silent, transactionsSilent));
        }
        return rows;
    }

    /** An answer's rows in the same form. */
    static Map<String, Row> rows(JsonNode answer) {
        Map<String, Row> rows = new TreeMap<>();
        for (JsonNode sdk : answer.path("sdks")) {
            rows.put(sdk.path("sdk").asText() + " " + sdk.path("version").asText() + " " + sdk.path("platform").asText(),
                    new Row(sdk.path("chunks").asLong(), counts(sdk.path("rejected")), sdk.path("samples").asLong(),
                            counts(sdk.path("samplesDropped")), sdk.path("sessions").asLong(),
                            sdk.path("transactions").asLong(), sdk.path("silentSessions").asLong(),
                            sdk.path("transactionsSilent").asLong()));
        }
        return rows;
    }

    private static Map<String, Long> counts(JsonNode map) {
        Map<String, Long> counts = new TreeMap<>();
        map.fields().forEachRemaining(e -> counts.put(e.getKey(), e.getValue().asLong()));
        return counts;
    }

    private static long lonelySamples(JsonNode profile) {
        JsonNode stacks = profile.path("stacks");
        Map<String, Integer> useful = new HashMap<>();
        for (JsonNode sample : profile.path("samples")) {
            int stack = sample.path("stack_id").asInt();
            useful.merge(sample.path("thread_id").asText(),
                    stack < stacks.size() && stacks.get(stack).size() > 0 ? 1 : 0, Integer::sum);
        }
        long lonely = 0;
        for (JsonNode sample : profile.path("samples")) {
            if (useful.get(sample.path("thread_id").asText()) < 2) {
                lonely++;
            }
        }
        return lonely;
    }

    private static String sdkOf(JsonNode envelopeHeader, JsonNode itemHeader, JsonNode chunk) {
        JsonNode sdk = chunk.path("client_sdk").path("name").isTextual() ? chunk.path("client_sdk")
                : envelopeHeader.path("sdk");
        String platform = itemHeader.path("platform").isTextual() ? itemHeader.path("platform").asText()
                : chunk.path("platform").asText("unknown");
        return sdk.path("name").asText("unknown") + " " + sdk.path("version").asText("unknown") + " " + platform;
    }

    /** The payload as JSON, or an empty object when it is not an object. */
    private static JsonNode read(byte[] payload) {
        try {
            JsonNode node = JSON.readTree(payload);
            return node != null && node.isObject() ? node : JSON.createObjectNode();
        } catch (IOException notJson) {
            return JSON.createObjectNode();
        }
    }
}
