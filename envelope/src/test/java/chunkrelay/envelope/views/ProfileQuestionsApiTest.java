package chunkrelay.envelope.views;

import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.perftools.profiles.ProfileProto;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 26's questions against the running relay after the recorded SDK requests, checked against the test's own walk
 * of the archived OTLP forms: every export holds every sample, the trace list counts each span's linked samples,
 * trace → profile holds exactly a trace's samples, a differential profile of the same samples under two releases
 * changes nothing and one with a chunk sent twice changes by the computed share, and the timeline counts every sample.
 */
@Tag("external")
class ProfileQuestionsApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RANGE = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";
    private static final String TRANSACTION_TRACE = "acaf88a141894171b76154725292c830";
    private static JsonNode json(RelayClient.Answer answer) {
        assertEquals(200, answer.status(), answer.raw());
        return answer.body();
    }

    private static void replayAll(RunningRelay relay) {
        for (SdkRequest request : RecordedDay.requests()) {
            assertEquals(200, relay.client().replay(request).status(), request.name());
        }
    }

    /** The samples an export holds, by reading it as its tools do. */
    private static long exportedSamples(RelayClient client, String path, String format) throws Exception {
        RelayClient.Answer response = client.get(path + (path.contains("?") ? "&" : "?") + "format=" + format);
        assertEquals(200, response.status(), response.raw());
        switch (format) {
            case "pprof" -> {
                ProfileProto.Profile pprof = ProfileProto.Profile.parseFrom(
                        new GZIPInputStream(new ByteArrayInputStream(response.bytes())).readAllBytes());
                assertTrue(pprof.getSampleList().stream().allMatch(s -> s.getLocationIdCount() > 0),
                        "every pprof sample has a frame");
                return pprof.getSampleList().stream().mapToLong(s -> s.getValue(0)).sum();
            }
            case "speedscope" -> {
                long samples = 0;
                for (JsonNode profile : response.body().path("profiles")) {
                    for (int i = 0; i < profile.path("samples").size(); i++) {
                        assertTrue(profile.path("samples").get(i).size() > 0, "every speedscope sample has a frame");
                        samples += profile.path("counts").get(i).asLong();
                    }
                }
                return samples;
            }
            case "collapsed" -> {
                long samples = 0;
                for (String line : response.raw().split("\n")) {
                    assertTrue(line.matches("[^ ].* [0-9]+"), "a named stack and a count: '" + line + "'");
                    samples += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                }
                return samples;
            }
            default -> {
                return ExportProfilesServiceRequest.parseFrom(response.bytes()).getResourceProfiles(0)
                        .getScopeProfiles(0).getProfiles(0).getSamplesList().stream()
                        .mapToLong(s -> s.getValues(0)).sum();
            }
        }
    }

    @Test
    void exportsTracesAndTraceProfilesHoldExactlyTheSamplesOfTheArchivedOtlpForms() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            replayAll(relay);
            RelayClient client = relay.client();
            ArchivedSamples walk = ArchivedSamples.walk(relay);
            for (String format : new String[] {"pprof", "speedscope", "collapsed", "otlp"}) {
                assertEquals(walk.samples, exportedSamples(client, "/api/v1/projects/1/profile?" + RANGE, format),
                        format + " holds every sample of the OTLP forms, those without a stack too");
            }

            JsonNode traces = json(client.get("/api/v1/projects/1/traces?" + RANGE));
            assertEquals(walk.samples, traces.path("samples").asLong());
            Map<String, Long> listed = new HashMap<>();
            for (JsonNode trace : traces.path("traces")) {
                long spanSum = 0;
                for (JsonNode span : trace.path("spans")) {
                    listed.put(trace.path("traceId").asText() + "/" + span.path("spanId").asText(),
                            span.path("samples").asLong());
                    spanSum += span.path("samples").asLong();
                    assertTrue(span.path("firstSampleNanos").asLong() <= span.path("lastSampleNanos").asLong());
                }
                assertEquals(spanSum, trace.path("samples").asLong());
            }
            assertEquals(walk.bySpan, listed, "samples per span as the links of the OTLP forms say");
            assertTrue(listed.keySet().stream().anyMatch(k -> k.startsWith(TRANSACTION_TRACE + "/")),
                    "the Java transaction's trace: " + listed.keySet());
            assertTrue(walk.bySpan.size() >= 3, "Node's spans and Java's transaction: " + walk.bySpan);

            for (JsonNode trace : traces.path("traces")) {
                String id = trace.path("traceId").asText();
                String window = "from=" + trace.path("firstSampleNanos").asLong() / 1_000_000_000L
                        + "&to=" + (trace.path("lastSampleNanos").asLong() / 1_000_000_000L + 1);
                for (String format : new String[] {"pprof", "speedscope", "collapsed", "otlp"}) {
                    assertEquals(walk.ofTrace(id), exportedSamples(client, "/api/v1/projects/1/traces/" + id
                            + "/profile?" + window, format), "trace " + id + " as " + format);
                }
            }
            RelayClient.Answer elsewhere = client.get("/api/v1/projects/1/traces/" + TRANSACTION_TRACE
                    + "/profile?from=2026-11-23T00:00:00Z&to=2026-11-23T01:00:00Z");
            assertEquals(404, elsewhere.status());
            assertTrue(elsewhere.body().path("detail").asText().contains("give the trace's time"));
            assertEquals(400, client.get("/api/v1/projects/1/traces/xyz/profile?" + RANGE).status());

            JsonNode newest = json(client.get("/api/v1/projects/1/newest"));
            long lastSample = json(client.get("/api/v1/projects/1/chunks?" + RANGE)).path("chunks").findValues(
                    "lastSampleNanos").stream().mapToLong(JsonNode::asLong).max().orElseThrow();
            assertEquals(Instant.ofEpochSecond(lastSample / 1_000_000_000L + 1).toString(),
                    newest.path("to").asText(), "the newest chunk's last second, whole seconds");
            assertTrue(newest.path("from").asText().matches("2026-11-22T[0-9:]+Z"), newest.toString());
            assertEquals(RecordedDay.chunks().size(), json(client.get("/api/v1/projects/1/chunks?from="
                    + newest.path("from").asText() + "&to=" + newest.path("to").asText())).path("chunks").size());
            assertEquals(0, json(client.get("/api/v1/projects/1/chunks?" + RANGE + "&environment=production"))
                    .path("chunks").size());
            assertEquals(RecordedDay.chunks().size(), json(client.get("/api/v1/projects/1/chunks?" + RANGE
                    + "&environment=fixture")).path("chunks").size());
        }
    }

    @Test
    void diffOfTheSameSamplesIsZeroAndAChunkSentTwiceRaisesItsFunctionsByTheComputedShare() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            replayAll(relay);
            ReleasedCopies.send(relay, "java-8.43.0/001", "a0000000000000000000000000000001", "fixture-java@2.0.0");
            ReleasedCopies.send(relay, "java-8.43.0/003", "a0000000000000000000000000000002", "fixture-java@2.0.0");
            ReleasedCopies.send(relay, "java-8.43.0/001", "b0000000000000000000000000000001", "fixture-java@3.0.0");
            ReleasedCopies.send(relay, "java-8.43.0/003", "b0000000000000000000000000000002", "fixture-java@3.0.0");
            ReleasedCopies.send(relay, "java-8.43.0/003", "b0000000000000000000000000000003", "fixture-java@3.0.0");
            RelayClient client = relay.client();
            ArchivedSamples walk = ArchivedSamples.walk(relay);

            JsonNode same = json(client.get("/api/v1/projects/1/diff?" + RANGE
                    + "&baseline=release:fixture-java@1.0.0&comparison=fixture-java@2.0.0"));
            assertEquals("release fixture-java@1.0.0", same.path("baseline").path("label").asText());
            assertEquals(walk.byRelease.get("fixture-java@1.0.0"), same.path("baseline").path("samples").asLong());
            assertEquals(same.path("baseline").path("samples").asLong(), same.path("comparison").path("samples")
                    .asLong());
            assertTrue(same.path("functions").size() > 10);
            for (JsonNode function : same.path("functions")) {
                assertEquals(0.0, function.path("selfChange").asDouble(), function.toString());
                assertEquals(0.0, function.path("totalChange").asDouble(), function.toString());
            }
            for (JsonNode stack : same.path("stacks")) {
                assertEquals(0.0, stack.path("change").asDouble(), stack.toString());
            }

            JsonNode doubled = json(client.get("/api/v1/projects/1/diff?" + RANGE
                    + "&baseline=release:fixture-java@1.0.0&comparison=release:fixture-java@3.0.0"));
            assertEquals(walk.byRelease.get("fixture-java@3.0.0"), doubled.path("comparison").path("samples").asLong());
            int changed = 0;
            for (JsonNode function : doubled.path("functions")) {
                String key = function.path("name").asText() + "\u0000" + function.path("file").asText("");
                double expected = walk.totalShare("fixture-java@3.0.0", key)
                        - walk.totalShare("fixture-java@1.0.0", key);
                assertEquals(expected, function.path("totalChange").asDouble(), 1e-12, key);
                assertEquals(walk.totalShare("fixture-java@1.0.0", key), function.path("baselineTotalShare")
                        .asDouble(), 1e-12, key);
                if (Math.abs(expected) > 1e-4) {
                    changed++;
                }
            }
            assertTrue(changed > 0, "chunk 003 sent twice shifts some function's share");
            JsonNode first = doubled.path("functions").get(0);
            assertTrue(Math.abs(first.path("totalChange").asDouble()) >= Math.abs(doubled.path("functions").get(1)
                    .path("totalChange").asDouble()), "largest change first");

            JsonNode ranges = json(client.get("/api/v1/projects/1/diff?platform=java&baseline=2026-11-22T00:00:00Z/"
                    + "2026-11-22T12:00:00Z&comparison=2026-11-22T12:00:00Z/2026-11-23T00:00:00Z"));
            assertTrue(ranges.path("baseline").path("label").asText().contains("/"));
            RelayClient.Answer missing = client.get("/api/v1/projects/1/diff?" + RANGE + "&baseline=x");
            assertEquals(400, missing.status());
            assertTrue(missing.body().path("detail").asText().startsWith("comparison is required"));
        }
    }

    @Test
    void timelineCountsEverySamplePerThreadAndPerProfiler() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            replayAll(relay);
            RelayClient client = relay.client();
            ArchivedSamples walk = ArchivedSamples.walk(relay);
            for (String by : new String[] {"thread", "profiler"}) {
                JsonNode timeline = json(client.get("/api/v1/projects/1/timeline?" + RANGE + "&step=1h&by=" + by));
                assertEquals(24, timeline.path("steps").asInt());
                assertEquals(3_600_000_000_000L, timeline.path("stepNanos").asLong());
                long total = 0;
                for (JsonNode series : timeline.path("series")) {
                    assertEquals(24, series.path("counts").size());
                    long sum = 0;
                    for (JsonNode count : series.path("counts")) {
                        sum += count.asLong();
                    }
                    assertEquals(series.path("samples").asLong(), sum);
                    total += sum;
                }
                assertEquals(walk.samples, total, by);
                if (by.equals("profiler")) {
                    assertEquals(3, timeline.path("series").size(), "Java, Node and Node's long run");
                } else {
                    assertTrue(timeline.path("series").size() > 3, "Java's threads");
                }
            }
            JsonNode byDefault = json(client.get("/api/v1/projects/1/timeline?" + RANGE));
            assertEquals(900_000_000_000L, byDefault.path("stepNanos").asLong(), "a day in steps of 15 minutes");
            assertEquals(96, byDefault.path("steps").asInt());
            RelayClient.Answer tooMany = client.get("/api/v1/projects/1/timeline?" + RANGE + "&step=1s");
            assertEquals(400, tooMany.status());
            assertTrue(tooMany.body().path("detail").asText().contains("at most 2000"));
            assertEquals(400, client.get("/api/v1/projects/1/timeline?" + RANGE + "&by=span").status());
        }
    }

    @Test
    void exportCommandWritesTheTracesAndDiffAnswersOfTheApi(@TempDir Path work)
            throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            JsonNode traces;
            JsonNode diff;
            String sides = "&baseline=2026-11-22T00:00:00Z/2026-11-22T02:28:55Z"
                    + "&comparison=2026-11-22T02:28:55Z/2026-11-23T00:00:00Z";
            try (RunningRelay relay = RunningRelay.start(s3, Map.of())) {
                replayAll(relay);
                traces = json(relay.client().get("/api/v1/projects/1/traces?" + RANGE));
                diff = json(relay.client().get("/api/v1/projects/1/diff?" + RANGE + "&platform=java" + sides));
            }
            assertEquals(traces, JSON.readTree(export(s3, work.resolve("traces.json"), "--format", "traces")));
            assertEquals(diff, JSON.readTree(export(s3, work.resolve("diff.json"), "--format", "diff",
                    "--platform", "java", "--baseline", "2026-11-22T00:00:00Z/2026-11-22T02:28:55Z",
                    "--comparison", "2026-11-22T02:28:55Z/2026-11-23T00:00:00Z")));
            assertTrue(diff.path("baseline").path("samples").asLong() > 0
                    && diff.path("comparison").path("samples").asLong() > 0, diff.path("baseline").toString());
        }
    }

    /** Runs {@code export} in its own JVM against the bucket and returns what it wrote. */
    private static byte[] export(EmbeddedS3Server s3, Path out, String... arguments) throws Exception {
        List<String> options = new ArrayList<>(List.of("-Xmx256m"));
        RunningRelay.storageProperties(s3).forEach((key, value) -> options.add("-D" + key + "=" + value));
        List<String> command = new ArrayList<>(ChildJvm.command(options, Application.class, "export", "--project", "1",
                "--from", "2026-11-22T00:00:00Z", "--to", "2026-11-23T00:00:00Z", "--out", out.toString()));
        command.addAll(List.of(arguments));
        Process export = new ProcessBuilder(command).redirectErrorStream(true).start();
        String log = new String(export.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(export.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, export.exitValue(), log);
        return Files.readAllBytes(out);
    }

    @Test
    void everyNewRouteNeedsTheTokenLikeTheOthers() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.views.token", "s3cret-token"))) {
            replayAll(relay);
            for (String path : new String[] {"/newest", "/traces", "/traces/" + TRANSACTION_TRACE + "/profile",
                    "/diff?baseline=a&comparison=b", "/timeline"}) {
                assertEquals(401, relay.client().get("/api/v1/projects/1" + path).status(), path);
            }
            assertEquals(200, relay.client().get("/api/v1/projects/1/timeline", "Authorization", "Bearer s3cret-token")
                    .status());
        }
    }
}
