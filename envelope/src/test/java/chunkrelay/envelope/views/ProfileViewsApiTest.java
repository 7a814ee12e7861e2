package chunkrelay.envelope.views;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;
import chunkrelay.envelope.rollups.RollupBuilder;
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
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16's query API, access rules and command line against the running relay after the recorded SDK requests:
 * chunk listings from the bucket, merged exports equal to the archived OTLP forms, the chunk cap, bearer-token and
 * loopback-only modes, CORS that lets browser SDKs post but no other site read profiles, and {@code export}.
 */
@Tag("external")
class ProfileViewsApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The recorded requests replayed here ({@link RecordedDay}) are of 2026-11-22 (UTC). */
    private static final String RANGE = "from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z";
    private static void replayAll(RunningRelay relay) {
        for (SdkRequest request : RecordedDay.requests()) {
            assertEquals(200, relay.client().replay(request).status(), request.name());
        }
    }

    private static long archivedSamples(RunningRelay relay) throws IOException {
        long samples = 0;
        for (var chunk : relay.archivedChunks()) {
            ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(relay.archive().readOtlp(chunk));
            samples += otlp.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesList().stream()
                    .mapToLong(s -> s.getTimestampsUnixNanoCount()).sum();
        }
        return samples;
    }

    @Test
    void listingsAndExportsShowWhatWasArchived() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            replayAll(relay);
            RelayClient client = relay.client();

            assertEquals(List.of("1"), JSON.convertValue(client.get("/api/v1/projects").body().path("projects"),
                    List.class));
            JsonNode chunks = client.get("/api/v1/projects/1/chunks?" + RANGE).body().path("chunks");
            List<RecordedChunk> recorded = RecordedDay.chunks();
            assertEquals(recorded.size(), chunks.size());
            Set<String> platforms = new TreeSet<>();
            for (JsonNode chunk : chunks) {
                assertEquals("2026-11-22", chunk.path("day").asText());
                assertTrue(chunk.path("sampleCount").asLong() > 0);
                assertTrue(chunk.path("firstSampleNanos").asLong() <= chunk.path("lastSampleNanos").asLong());
                assertTrue(chunk.path("delivered").isBoolean());
                assertEquals(true, chunk.path("derived").asBoolean(), "window 0: derived before the answer");
                assertEquals(false, chunk.path("delivered").asBoolean(), "forwarding is off");
                platforms.add(chunk.path("platform").asText());
            }
            assertEquals(Set.of("java", "node"), platforms);
            JsonNode javaOnly = client.get("/api/v1/projects/1/chunks?" + RANGE + "&platform=java").body()
                    .path("chunks");
            assertEquals(2, javaOnly.size());
            String profiler = javaOnly.get(0).path("profilerId").asText();
            assertEquals(2, client.get("/api/v1/projects/1/chunks?" + RANGE + "&profiler_id="
                    + profiler.toUpperCase()).body().path("chunks").size());
            assertEquals(0, client.get("/api/v1/projects/1/chunks?from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z")
                    .body().path("chunks").size());

            RelayClient.Answer pprof = client.get("/api/v1/projects/1/profile?" + RANGE + "&format=pprof");
            assertEquals(200, pprof.status());
            assertEquals("attachment; filename=\"profile-1-20261122T000000Z-20261123T000000Z.pb.gz\"",
                    pprof.headers().firstValue("Content-Disposition").orElseThrow());
            ProfileProto.Profile profile = ProfileProto.Profile.parseFrom(
                    new GZIPInputStream(new ByteArrayInputStream(pprof.bytes())).readAllBytes());
            long pprofSamples = profile.getSampleList().stream().mapToLong(s -> s.getValue(0)).sum();
            assertEquals(archivedSamples(relay), pprofSamples, "every archived sample, once");

            ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(
                    client.get("/api/v1/projects/1/profile?" + RANGE + "&format=otlp").bytes());
            assertEquals(pprofSamples, otlp.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesList()
                    .stream().mapToLong(s -> s.getValues(0)).sum(), "the OTLP export's samples are counts");
            JsonNode speedscope = client.get("/api/v1/projects/1/profile?" + RANGE + "&format=speedscope").body();
            assertEquals("https://www.speedscope.app/file-format-schema.json", speedscope.path("$schema").asText());
            String collapsed = client.get("/api/v1/projects/1/profile?" + RANGE + "&format=collapsed"
                    + "&thread_id=1&platform=java").raw();
            assertTrue(collapsed.lines().allMatch(line -> line.matches(".+ [0-9]+")), collapsed);
            assertTrue(collapsed.contains("fixture.ProfileMain.main;fixture.ProfileMain.busyLoop;"), "qualified JVM names: "
                    + collapsed.lines().limit(3)
                    .toList());

            // the recorded transaction's links: its trace id selects the main-thread samples inside it
            String trace = "acaf88a141894171b76154725292c830";
            ProfileProto.Profile linked = ProfileProto.Profile.parseFrom(new GZIPInputStream(new ByteArrayInputStream(
                    client.get("/api/v1/projects/1/profile?" + RANGE + "&trace_id=" + trace).bytes())).readAllBytes());
            assertEquals(469, linked.getSampleList().stream().mapToLong(s -> s.getValue(0)).sum(),
                    "window 0: the chunk sent after the transaction links 469 samples, the one before none");

            RelayClient.Answer badFormat = client.get("/api/v1/projects/1/profile?" + RANGE + "&format=svg");
            assertEquals(400, badFormat.status());
            assertTrue(badFormat.body().path("detail").asText().contains("pprof, speedscope, collapsed or otlp"));
            RelayClient.Answer badTime = client.get("/api/v1/projects/1/chunks?from=yesterday");
            assertEquals(400, badTime.status());
            assertTrue(badTime.body().path("detail").asText().startsWith("from must be an RFC 3339 time"));
        }
    }

    @Test
    void chunksInsideTheirLinkWindowAreListedAsNotYetDerivedAndLeftOutOfProfiles() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.links.window", "10m"))) {
            assertEquals(200, relay.client().replay(Fixtures.sdkRequest("java-8.43.0/001")).status());
            JsonNode chunks = relay.client().get("/api/v1/projects/1/chunks?" + RANGE).body().path("chunks");
            assertEquals(1, chunks.size());
            assertEquals(false, chunks.get(0).path("derived").asBoolean(true));
            assertEquals("java", chunks.get(0).path("platform").asText());
            assertTrue(chunks.get(0).path("sampleCount").asLong() > 0);
            String collapsed = relay.client().get("/api/v1/projects/1/profile?" + RANGE
                    + "&format=collapsed").raw();
            assertEquals("", collapsed, "profiles hold derived chunks only");
        }
    }

    @Test
    void chunksTheQuestionReadsWholePastTheCapAre400AndRollupsNotBuiltYetAre503WithRetryAfter() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("test.clock", "manual",
                     "relay.views.max-chunks", "2"))) {
            replayAll(relay);
            // a trace filter reads every chunk of its range whole: the question's doing
            RelayClient.Answer traced = relay.client().get("/api/v1/projects/1/profile?" + RANGE
                    + "&trace_id=0123456789abcdef0123456789abcdef");
            assertEquals(400, traced.status());
            assertEquals("the range needs more than 2 chunks read whole (relay.views.max-chunks): a trace or span"
                    + " filter reads every chunk of its range whole (links are per sample): give the trace's own time"
                    + " as from/to, or filter by profiler_id", traced.body().path("detail").asText());

            // the day's minutes are not rolled up yet (the builder runs on the test's clock, which stands): the
            // relay's doing, so 503 until its next round
            RelayClient.Answer waiting = relay.client().get("/api/v1/projects/1/profile?" + RANGE);
            assertEquals(503, waiting.status());
            assertEquals("10", waiting.headers().firstValue("Retry-After").orElseThrow());
            assertEquals("the rollups of this range are not built yet (the builder is catching up after a backfill,"
                    + " a restart or a reindex): answering now would read more than 2 chunks whole"
                    + " (relay.views.max-chunks); retry in 10 s", waiting.body().path("detail").asText());

            relay.bean(RollupBuilder.class).runOnce();
            RelayClient.Answer built = relay.client().get("/api/v1/projects/1/profile?format=collapsed&" + RANGE);
            assertEquals(200, built.status(), built.raw());
            assertEquals(archivedSamples(relay), built.raw().lines()
                    .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum(), "every sample");
        }
    }

    @Test
    void withATokenEveryViewRequestNeedsTheBearerTokenAndThePageAsksForIt() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.views.token", "s3cret-token"))) {
            RelayClient client = relay.client();
            assertEquals("{\"projects\":[]}", client.get("/api/v1/projects", "Authorization",
                    "Bearer s3cret-token").raw(), "an empty archive lists no project");
            assertEquals(0, client.get("/api/v1/projects/1/chunks", "Authorization", "Bearer s3cret-token").body()
                    .path("chunks").size());
            assertTrue(client.get("/api/v1/projects/1/chunks", "Authorization", "Bearer s3cret-token").body()
                    .path("chunks").isArray(), "an empty range has an empty list");
            RelayClient.Answer without = client.get("/api/v1/projects");
            assertEquals(401, without.status());
            assertEquals("Bearer", without.headers().firstValue("WWW-Authenticate").orElseThrow());
            assertEquals(401, client.get("/api/v1/projects", "Authorization", "Bearer wrong").status());
            assertEquals(200, client.get("/api/v1/projects", "Authorization", "Bearer s3cret-token").status());
            assertEquals(200, client.get("/").status(), "the page holds no data");
            // the envelope endpoint is unaffected
            assertEquals(200, relay.client().replay(RecordedDay.requests().get(0)).status());
        }
    }

    @Test
    void withoutATokenOnlyLoopbackClientsWithALoopbackHostGetAnAnswer() throws Exception {
        InetAddress external = nonLoopbackAddress();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            URI base = relay.uri();
            RelayClient client = relay.client();
            assertEquals(200, client.get("/api/v1/projects").status());
            assertEquals(200, new RelayClient(URI.create("http://127.0.0.1:" + base.getPort())).get("/").status());

            RelayClient outside = new RelayClient(URI.create("http://" + external.getHostAddress() + ":"
                    + base.getPort()));
            RelayClient.Answer fromOutside = outside.get("/api/v1/projects");
            assertEquals(403, fromOutside.status(), "a client on " + external);
            assertEquals("without relay.views.token the views answer loopback clients only",
                    fromOutside.body().path("detail").asText());
            assertEquals(403, outside.get("/").status());
            // the envelope endpoint answers everyone
            assertEquals(200, outside.replay(RecordedDay.requests().get(0)).status());

            assertEquals(403, rawGetStatus(base.getPort(), "/api/v1/projects", "evil.example"),
                    "DNS rebinding: a loopback client naming another host");
            assertEquals(200, rawGetStatus(base.getPort(), "/api/v1/projects", "localhost:" + base.getPort()));
        }
    }

    @Test
    void otherSitesCannotReadViewsWhileBrowserSdksStillPostEnvelopes() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            RelayClient client = relay.client();
            RelayClient.Answer read = client.get("/api/v1/projects", "Origin", "http://evil.example");
            assertNull(read.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
            assertNull(read.headers().firstValue("Access-Control-Allow-Credentials").orElse(null));
            RelayClient.Answer preflight = client.request("OPTIONS", "/api/v1/projects", "Origin",
                    "http://evil.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers",
                    "authorization");
            assertNull(preflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null),
                    "preflight " + preflight.status() + " " + preflight.headers().map());

            SdkRequest sdk = RecordedDay.requests().get(0);
            List<String> headers = new ArrayList<>();
            sdk.headers().forEach(h -> {
                headers.add(h.name());
                headers.add(h.value());
            });
            headers.addAll(List.of("Origin", "https://shop.example"));
            RelayClient.Answer posted = relay.client().post(sdk.pathAndQuery(), sdk.body(),
                    headers.toArray(String[]::new));
            assertEquals(200, posted.status());
            assertEquals("https://shop.example", posted.header("Access-Control-Allow-Origin"));
            assertTrue(posted.header("Access-Control-Allow-Credentials") == null
                    || posted.header("Access-Control-Allow-Credentials").equals("false"));
        }
    }

    @Test
    void viewsTurnedOffAnswer404() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of("relay.views.enabled", "false"))) {
            assertEquals(404, relay.client().get("/api/v1/projects").status());
            assertEquals(404, relay.client().get("/").status());
        }
    }

    @Test
    void exportCommandWritesTheSameProfileFromTheBucketWithoutAServer(@TempDir Path work) throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory()) {
            long archived;
            byte[] fromApi;
            try (RunningRelay relay = RunningRelay.start(s3, Map.of())) {
                replayAll(relay);
                archived = archivedSamples(relay);
                fromApi = relay.client().get("/api/v1/projects/1/profile?" + RANGE + "&format=collapsed").bytes();
            }
            Path out = work.resolve("profile.collapsed.txt");
            Map<String, Object> config = new HashMap<>(RunningRelay.storageProperties(s3));
            List<String> options = new ArrayList<>(List.of("-Xmx256m"));
            config.forEach((key, value) -> options.add("-D" + key + "=" + value));
            List<String> command = ChildJvm.command(options, Application.class,
                    "export", "--project", "1", "--from", "2026-11-22T00:00:00Z", "--to", "2026-11-23T00:00:00Z",
                    "--format", "collapsed", "--out", out.toString());
            Process export = new ProcessBuilder(command).redirectErrorStream(true).start();
            String log = new String(export.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(export.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, export.exitValue(), log);
            assertEquals(new String(fromApi, StandardCharsets.UTF_8), Files.readString(out), "the API's code path");
            long total = Files.readAllLines(out).stream()
                    .mapToLong(line -> Long.parseLong(line.substring(line.lastIndexOf(' ') + 1))).sum();
            assertEquals(archived, total);

            Process usage = new ProcessBuilder(ChildJvm.command(List.of(), Application.class, "export",
                    "--project", "x")).redirectErrorStream(true).start();
            String usageLog = new String(usage.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(usage.waitFor(60, TimeUnit.SECONDS));
            assertEquals(2, usage.exitValue(), usageLog);
        }
    }

    /** A request with a Host header of our choosing, which the JDK client does not allow. */
    private static int rawGetStatus(int port, String path, String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return Integer.parseInt(response.substring(9, 12));
        }
    }

    private static InetAddress nonLoopbackAddress() throws IOException {
        for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!network.isUp() || network.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(network.getInetAddresses())) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
                    return address;
                }
            }
        }
        throw new AssertionError("this machine has no non-loopback IPv4 address to test the loopback rule from: "
                + NetworkInterface.networkInterfaces().map(NetworkInterface::getName).collect(Collectors.toList()));
    }
}
