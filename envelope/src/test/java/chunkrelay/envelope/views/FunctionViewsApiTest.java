package chunkrelay.envelope.views;

import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;
import chunkrelay.envelope.rollups.RollupBuilder;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.ReleaseFleet;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.OtlpSamples;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.perftools.profiles.ProfileProto;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 43's routes on a generated fleet of two releases ({@link ReleaseFleet}) sent to the relay, rolled up, and
 * asked with a chunk cap below the fleet's chunks (so rollups answer): the top-functions table of random ranges and
 * filters equals the test's own walk of the archived OTLP forms, its self counts add up to the flame graph's samples;
 * the regressions of the two releases put the function made a tenth more expensive first with high confidence and
 * flag nothing else, two ranges of one release flag nothing; the CSV and the {@code export} command give the same.
 */
@Tag("slow")
class FunctionViewsApiTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final int CHUNKS = 6;
    private static final int STEPS = 500;
    private static EmbeddedS3Server s3;
    private static RunningRelay relay;
    private static long start;
    private static List<Archived> archived;

    @BeforeAll
    static void sendTheFleet() throws Exception {
        s3 = EmbeddedS3Server.inMemory();
        relay = RunningRelay.start(s3, Map.of("test.clock", "manual", "relay.links.window", "0s",
                "relay.rollups.interval", "1h", "relay.views.max-chunks", "60"));
        start = Math.floorDiv(nanos(relay.clock().instant()), HOUR) * HOUR - 4 * HOUR;
        ReleaseFleet.seededAsFrom(start).send(relay, start, CHUNKS, STEPS);
        relay.bean(RollupBuilder.class).runOnce();
        archived = new ArrayList<>();
        for (ArchivedChunk chunk : relay.archivedChunks()) {
            archived.add(new Archived(chunk.key().profilerId(), relay.archive().metadata(chunk),
                    ExportProfilesServiceRequest.parseFrom(relay.archive().readOtlp(chunk))));
        }
        assertEquals(ReleaseFleet.PROCESSES * CHUNKS, archived.size());
    }

    @AfterAll
    static void stop() {
        relay.close();
        s3.close();
    }

    @Test
    void theTableOfRandomRangesAndFiltersEqualsTheWalkOfTheArchivedFormsAndAddsUpToTheFlameGraph() throws Exception {
        Random random = new Random(43);
        RelayClient client = relay.client();
        for (int round = 0; round < 10; round++) {
            long from = start - 30 * SECOND + random.nextInt(200) * SECOND + random.nextInt(1000) * 1_000_000L;
            long to = from + 40 * SECOND + random.nextInt(300) * SECOND;
            String filter = switch (round % 5) {
                case 0 -> "";
                case 1 -> "&release=" + ReleaseFleet.NEW;
                case 2 -> "&profiler_id=" + ReleaseFleet.profilerId(round);
                case 3 -> "&thread_id=1&environment=production&platform=python";
                default -> "&release=" + ReleaseFleet.OLD + "&thread_id=3";
            };
            String range = "from=" + Instant.ofEpochSecond(0, from) + "&to=" + Instant.ofEpochSecond(0, to) + filter;
            Map<String, long[]> walk = walk(from, to, filter);
            JsonNode table = client.get("/api/v1/projects/1/functions?limit=100000&" + range).body();
            Map<String, long[]> answered = new TreeMap<>();
            long selfSum = 0;
            for (JsonNode row : table.path("rows")) {
                answered.put(row.path("name").asText() + " " + row.path("file").asText(),
                        new long[] {row.path("self").asLong(), row.path("total").asLong()});
                selfSum += row.path("self").asLong();
                assertEquals(row.path("self").asLong() * 10_000_000L, row.path("selfNanos").asLong(), "10 ms samples");
            }
            assertEquals(toText(walk), toText(answered), range);
            assertEquals(table.path("samples").asLong(), selfSum, range);
            assertEquals(flameGraphSamples(client.get("/api/v1/projects/1/profile?format=pprof&" + range).bytes()),
                    selfSum, "self counts add up to the flame graph's samples, " + range);
        }
        JsonNode traced = client.get("/api/v1/projects/1/functions?trace_id=" + "ab".repeat(16) + "&from="
                + Instant.ofEpochSecond(0, start) + "&to=" + Instant.ofEpochSecond(0, start + 10 * MINUTE)).body();
        assertEquals(0, traced.path("samples").asLong(), "no sample of the fleet is linked");
        assertEquals(0, traced.path("rows").size());
    }

    @Test
    void theTableIsSortedSearchedPagedAndDownloadedAsCsv() throws Exception {
        RelayClient client = relay.client();
        String range = range(start, start + 10 * MINUTE);
        JsonNode bySelf = client.get("/api/v1/projects/1/functions?limit=3&" + range).body();
        assertEquals(ReleaseFleet.REGRESSED_NAME, bySelf.path("rows").get(0).path("name").asText(),
                "the most self time");
        assertEquals(3, bySelf.path("rows").size());
        int functions = bySelf.path("functions").asInt();
        assertEquals(4 + 20 + 6, functions, "main, serve, work, encode_json, handlers, tasks, leaves");
        JsonNode byTotal = client.get("/api/v1/projects/1/functions?sort=total&limit=1&" + range).body();
        assertEquals("app.main.main", byTotal.path("rows").get(0).path("name").asText());
        assertEquals(1.0, byTotal.path("rows").get(0).path("totalShare").asDouble(), 1e-12);
        JsonNode searched = client.get("/api/v1/projects/1/functions?q=TASK_&offset=8&" + range).body();
        assertEquals(10, searched.path("matching").asInt());
        assertEquals(2, searched.path("rows").size());

        RelayClient.Answer csv = client.get("/api/v1/projects/1/functions?format=csv&" + range);
        assertEquals(200, csv.status());
        assertTrue(csv.header("Content-Type").startsWith("text/csv"), csv.header("Content-Type"));
        assertTrue(csv.header("Content-Disposition").contains("functions-1-"), csv.header("Content-Disposition"));
        String[] lines = csv.raw().split("\r\n");
        assertEquals(functions + 1, lines.length, "a header and every function");
        assertTrue(lines[1].startsWith(ReleaseFleet.REGRESSED_NAME + ",app/codec.py,"), lines[1]);

        // views are not public: a client naming the relay by another host (DNS rebinding) is refused
        assertEquals(403, rawGetStatus(relay.uri().getPort(), "/api/v1/projects/1/functions?" + range,
                "profiles.example.com"));
        assertEquals(403, rawGetStatus(relay.uri().getPort(), "/api/v1/projects/1/regressions?" + range,
                "profiles.example.com"));
        assertEquals(400, client.get("/api/v1/projects/1/functions?sort=name&" + range).status());
        assertEquals(400, client.get("/api/v1/projects/1/functions?limit=-1&" + range).status());
        assertEquals(400, client.get("/api/v1/projects/1/functions?format=xml&" + range).status());
    }

    @Test
    void theRegressionOfTheNewReleaseComesFirstAndTwoRangesOfOneReleaseShowNone() {
        RelayClient client = relay.client();
        long from = start - MINUTE;
        long to = start + 10 * MINUTE;
        String range = range(from, to);
        JsonNode releases = client.get("/api/v1/projects/1/regressions?" + range + "&baseline="
                + encode("release:" + ReleaseFleet.OLD) + "&comparison=" + encode("release:" + ReleaseFleet.NEW))
                .body();
        JsonNode first = releases.path("functions").get(0);
        assertEquals(ReleaseFleet.REGRESSED_NAME, first.path("name").asText(), releases.toString());
        assertEquals("REGRESSION", first.path("verdict").asText());
        assertTrue(first.path("self").path("confidence").asDouble() > 0.999, first.toString());
        // the fleet's processes draw their samples at random: the change is the one the archived samples show
        double baseline = meanSelfShare(ReleaseFleet.OLD, from, to);
        double comparison = meanSelfShare(ReleaseFleet.NEW, from, to);
        assertEquals(baseline, first.path("self").path("baselineShare").asDouble(), 1e-12, first.toString());
        assertEquals(comparison, first.path("self").path("comparisonShare").asDouble(), 1e-12, first.toString());
        assertEquals((comparison - baseline) / baseline, first.path("self").path("relativeChange").asDouble(), 1e-9,
                first.toString());
        for (int i = 1; i < releases.path("functions").size(); i++) {
            JsonNode other = releases.path("functions").get(i);
            assertEquals("UNCHANGED", other.path("verdict").asText(), other.toString());
        }
        assertEquals("profiler", releases.path("baseline").path("unit").asText());
        assertEquals(10, releases.path("baseline").path("judgedUnits").asInt());
        assertEquals(0.001, releases.path("settings").path("minShare").asDouble());

        String middle = Instant.ofEpochSecond(0, start + 3 * MINUTE).toString();
        JsonNode ranges = client.get("/api/v1/projects/1/regressions?" + range + "&release=" + ReleaseFleet.NEW
                + "&baseline=" + encode(Instant.ofEpochSecond(0, start) + "/" + middle) + "&comparison="
                + encode(middle + "/" + Instant.ofEpochSecond(0, start + 7 * MINUTE))).body();
        assertTrue(ranges.path("judged").asInt() > 20, ranges.toString());
        for (JsonNode function : ranges.path("functions")) {
            assertEquals("UNCHANGED", function.path("verdict").asText(), function.toString());
        }
        assertEquals(400, client.get("/api/v1/projects/1/regressions?" + range + "&baseline=release:"
                + ReleaseFleet.OLD).status(), "a comparison is required");
    }

    @Test
    @Tag("external")
    void exportCommandWritesTheTableAndTheRegressionsAsTheApiDoes(@TempDir Path work) throws Exception {
        String from = Instant.ofEpochSecond(0, start).toString();
        String to = Instant.ofEpochSecond(0, start + 10 * MINUTE).toString();
        String apiCsv = relay.client().get("/api/v1/projects/1/functions?format=csv&sort=total&q=handler&"
                + range(start, start + 10 * MINUTE)).raw();
        JsonNode apiRegressions = relay.client().get("/api/v1/projects/1/regressions?" + range(start,
                start + 10 * MINUTE) + "&baseline=" + encode("release:" + ReleaseFleet.OLD) + "&comparison="
                + encode("release:" + ReleaseFleet.NEW)).body();
        Path csv = work.resolve("functions.csv");
        export(List.of("--from", from, "--to", to, "--format", "functions-csv", "--sort", "total", "--search",
                "handler", "--out", csv.toString()));
        assertEquals(apiCsv, Files.readString(csv));
        Path regressions = work.resolve("regressions.json");
        export(List.of("--from", from, "--to", to, "--format", "regressions", "--baseline", "release:"
                + ReleaseFleet.OLD, "--comparison", "release:" + ReleaseFleet.NEW, "--out", regressions.toString()));
        assertEquals(apiRegressions, new com.fasterxml.jackson.databind.ObjectMapper().readTree(regressions.toFile()));
    }

    private static void export(List<String> arguments) throws Exception {
        List<String> options = new ArrayList<>(List.of("-Xmx256m"));
        RunningRelay.storageProperties(s3).forEach((key, value) -> options.add("-D" + key + "=" + value));
        List<String> command = new ArrayList<>(List.of("export", "--project", "1"));
        command.addAll(arguments);
        Process export = new ProcessBuilder(ChildJvm.command(options, Application.class,
                command.toArray(String[]::new))).redirectErrorStream(true).start();
        String log = new String(export.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(export.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, export.exitValue(), log);
    }

    /** Function "name file" → {self, total} samples in the range and filter, walking every archived OTLP form. */
    private static Map<String, long[]> walk(long from, long to, String filter) {
        Map<String, String> wanted = new HashMap<>();
        for (String part : filter.split("&")) {
            if (part.contains("=")) {
                wanted.put(part.substring(0, part.indexOf('=')), part.substring(part.indexOf('=') + 1));
            }
        }
        Map<String, long[]> counts = new TreeMap<>();
        for (Archived chunk : archived) {
            Map<String, String> metadata = chunk.metadata();
            if (!matches(wanted, "release", metadata.get(ChunkMetadata.RELEASE))
                    || !matches(wanted, "environment", metadata.get(ChunkMetadata.ENVIRONMENT))
                    || !matches(wanted, "platform", metadata.get(ChunkMetadata.PLATFORM))
                    || !matches(wanted, "profiler_id", chunk.profilerId())) {
                continue;
            }
            ProfilesDictionary dictionary = chunk.otlp().getDictionary();
            for (Sample sample : chunk.otlp().getResourceProfiles(0).getScopeProfiles(0).getProfiles(0)
                    .getSamplesList()) {
                if (wanted.containsKey("thread_id") && !wanted.get("thread_id").equals(OtlpSamples.threadId(dictionary, sample))) {
                    continue;
                }
                long inRange = sample.getTimestampsUnixNanoList().stream().filter(t -> t >= from && t < to).count();
                if (inRange == 0) {
                    continue;
                }
                Set<String> seen = new HashSet<>();
                String leaf = null;
                for (int location : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
                    for (Line line : dictionary.getLocationTable(location).getLinesList()) {
                        var function = dictionary.getFunctionTable(line.getFunctionIndex());
                        String name = dictionary.getStringTable(function.getNameStrindex()) + " "
                                + dictionary.getStringTable(function.getFilenameStrindex());
                        leaf = leaf == null ? name : leaf;
                        if (seen.add(name)) {
                            counts.computeIfAbsent(name, k -> new long[2])[1] += inRange;
                        }
                    }
                }
                counts.computeIfAbsent(leaf, k -> new long[2])[0] += inRange;
            }
        }
        return counts;
    }

    /**
     * The test's own share of the regressed function in a release: over the release's processes, the mean of its
     * self samples' share of each one's samples in the range.
     */
    private static double meanSelfShare(String release, long from, long to) {
        Set<String> profilers = new TreeSet<>();
        archived.stream().filter(chunk -> release.equals(chunk.metadata().get(ChunkMetadata.RELEASE)))
                .forEach(chunk -> profilers.add(chunk.profilerId()));
        double shares = 0;
        for (String profiler : profilers) {
            Map<String, long[]> counts = walk(from, to, "&profiler_id=" + profiler);
            long samples = counts.values().stream().mapToLong(count -> count[0]).sum();
            shares += (double) counts.get(ReleaseFleet.REGRESSED_NAME + " app/codec.py")[0] / samples;
        }
        return shares / profilers.size();
    }

    private static boolean matches(Map<String, String> wanted, String name, String value) {
        return !wanted.containsKey(name) || wanted.get(name).equals(value);
    }

    /** A request with a Host header of our choosing, which the JDK client does not allow. */
    private static int rawGetStatus(int port, String path, String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return Integer.parseInt(response.substring(9, 12));
        }
    }

    private static long flameGraphSamples(byte[] pprof) throws Exception {
        ProfileProto.Profile profile = ProfileProto.Profile.parseFrom(
                new GZIPInputStream(new ByteArrayInputStream(pprof)).readAllBytes());
        return profile.getSampleList().stream().mapToLong(s -> s.getValue(0)).sum();
    }

    private static String toText(Map<String, long[]> counts) {
        StringBuilder text = new StringBuilder();
        counts.forEach((name, c) -> text.append(name).append(' ').append(c[0]).append(' ').append(c[1]).append('\n'));
        return text.toString();
    }

    private static String range(long from, long to) {
        return "from=" + Instant.ofEpochSecond(0, from) + "&to=" + Instant.ofEpochSecond(0, to);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * SECOND + instant.getNano();
    }

    private record Archived(String profilerId, Map<String, String> metadata, ExportProfilesServiceRequest otlp) {
    }
}
