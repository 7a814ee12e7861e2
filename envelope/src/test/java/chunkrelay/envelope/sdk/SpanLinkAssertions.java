package chunkrelay.envelope.sdk;

import chunkrelay.chunk.spans.ThreadIds;
import chunkrelay.translate.OtlpSamples;
import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks the links from samples to spans in the OTLP form against what the workload knows: each of its spans runs one
 * function, wholly inside, and is named after it ({@code module.qualname}, the driver's {@code in_span}). A sample
 * whose stack passes through such functions was taken inside the span of the innermost one, on its own thread; its
 * link must name that span. And no sample may link to a span that does not cover it: another thread, or a time
 * outside the span's start and end as the SDK sent them in its transactions.
 */
public final class SpanLinkAssertions {

    /** A span of the SDK's transactions: the root span and its children, with the thread each ran on. */
    record SentSpan(String spanId, String name, String threadId, long startNanos, long endNanos) {

        boolean covers(String thread, long timeNanos) {
            return threadId != null && threadId.equals(thread) && startNanos <= timeNanos && timeNanos <= endNanos;
        }
    }

    private SpanLinkAssertions() {
    }

    /**
     * @param spanFunctions the workload's functions that each must show on samples linked to their spans
     * @param minShare      the share of samples inside a span that must link to that span
     */
    public static void assertSamplesLinkedToTheSpansThatRanThem(String sdk, List<ReceivedEnvelope> envelopes,
                                                                List<ExportProfilesServiceRequest> otlp,
                                                                List<String> spanFunctions, double minShare) {
        String where = sdk + " SDK, step 'span links'";
        Map<String, SentSpan> spans = spans(envelopes);
        Map<String, List<SentSpan>> spansByName = new HashMap<>();
        spans.values().forEach(span -> spansByName.computeIfAbsent(span.name(), n -> new ArrayList<>()).add(span));
        long inside = 0;
        long rightlyLinked = 0;
        Map<String, Long> rightlyLinkedByFunction = new TreeMap<>();
        List<String> wrongLinks = new ArrayList<>();
        for (ExportProfilesServiceRequest request : otlp) {
            ProfilesDictionary dictionary = request.getDictionary();
            for (Profile profile : profiles(request)) {
                for (Sample sample : profile.getSamplesList()) {
                    String thread = ThreadIds.canonical(OtlpSamples.threadId(dictionary, sample));
                    String function = innermostSpanFunction(dictionary, sample, spansByName);
                    String linked = sample.getLinkIndex() == 0 ? null
                            : HexFormat.of().formatHex(dictionary.getLinkTable(sample.getLinkIndex()).getSpanId()
                            .toByteArray());
                    for (long time : sample.getTimestampsUnixNanoList()) {
                        if (linked != null) {
                            SentSpan span = spans.get(linked);
                            if (span == null || !span.covers(thread, time)) {
                                wrongLinks.add("thread " + thread + " at " + time + " links to " + linked + " "
                                        + span);
                            }
                        }
                        if (function == null) {
                            continue;
                        }
                        inside++;
                        SentSpan expected = spansByName.get(function).stream()
                                .filter(span -> span.covers(thread, time)).findFirst().orElse(null);
                        if (expected != null && expected.spanId().equals(linked)) {
                            rightlyLinked++;
                            rightlyLinkedByFunction.merge(function, 1L, Long::sum);
                        }
                    }
                }
            }
        }
        System.out.println("[sdk-e2e] " + sdk + ": " + rightlyLinked + " of " + inside
                + " samples inside a span link to it; by function " + rightlyLinkedByFunction);
        if (!wrongLinks.isEmpty()) {
            throw new AssertionError(where + ": " + wrongLinks.size() + " samples link to a span that does not cover"
                    + " them, e.g. " + wrongLinks.subList(0, Math.min(5, wrongLinks.size())));
        }
        if (inside == 0) {
            throw new AssertionError(where + ": no sample's stack names a function its spans are named after ("
                    + spanFunctions + "); span names: " + spansByName.keySet());
        }
        if (rightlyLinked < minShare * inside) {
            throw new AssertionError(where + ": " + rightlyLinked + " of " + inside + " samples taken inside a span"
                    + " link to it, expected at least " + Math.round(minShare * 100) + "%");
        }
        for (String function : spanFunctions) {
            if (rightlyLinkedByFunction.getOrDefault(function, 0L) == 0) {
                throw new AssertionError(where + ": no sample of '" + function + "' links to its span; linked by"
                        + " function: " + rightlyLinkedByFunction);
            }
        }
    }

    /** Every span of the transactions sent, by span id: the root from {@code contexts.trace}, then {@code spans}. */
    static Map<String, SentSpan> spans(List<ReceivedEnvelope> envelopes) {
        Map<String, SentSpan> spans = new HashMap<>();
        for (ReceivedEnvelope envelope : envelopes) {
            for (ReceivedEnvelope.Item item : envelope.itemsOfType("transaction")) {
                JsonNode event = item.payloadJson();
                JsonNode trace = event.path("contexts").path("trace");
                add(spans, trace.path("span_id").asText(), event.path("transaction").asText(),
                        trace.path("data").path("thread.id"), event.path("start_timestamp"), event.path("timestamp"));
                for (JsonNode span : event.path("spans")) {
                    add(spans, span.path("span_id").asText(), span.path("description").asText(),
                            span.path("data").path("thread.id"), span.path("start_timestamp"),
                            span.path("timestamp"));
                }
            }
        }
        return spans;
    }

    private static void add(Map<String, SentSpan> spans, String spanId, String name, JsonNode thread, JsonNode start,
                            JsonNode end) {
        spans.put(spanId, new SentSpan(spanId, name, ThreadIds.canonical(thread.asText(null)), nanos(start),
                nanos(end)));
    }

    /** Float Unix seconds or an RFC 3339 time, in Unix nanoseconds. */
    private static long nanos(JsonNode time) {
        if (time.isNumber()) {
            return new BigDecimal(time.asText()).movePointRight(9).longValue();
        }
        Instant instant = Instant.parse(time.asText());
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    /** The name of the leaf-most function of the sample's stack that spans are named after, or null. */
    private static String innermostSpanFunction(ProfilesDictionary dictionary, Sample sample,
                                                Map<String, List<SentSpan>> spansByName) {
        for (int locationIndex : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            for (Line line : dictionary.getLocationTable(locationIndex).getLinesList()) {
                String name = dictionary.getStringTable(
                        dictionary.getFunctionTable(line.getFunctionIndex()).getNameStrindex());
                if (spansByName.containsKey(name)) {
                    return name;
                }
            }
        }
        return null;
    }

    private static List<Profile> profiles(ExportProfilesServiceRequest request) {
        return request.getResourceProfilesList().stream()
                .map(ResourceProfiles::getScopeProfilesList).flatMap(List::stream)
                .map(ScopeProfiles::getProfilesList).flatMap(List::stream)
                .toList();
    }
}
