package chunkrelay.envelope.upstream;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.ingest.EnvelopeReader;
import chunkrelay.envelope.ingest.ItemHeader;
import chunkrelay.envelope.testing.ForkedRelay;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.EmbeddedS3Server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Everything the relay does not consume goes on to an upstream Sentry (here a real HTTP server that parses what it
 * gets), once, with its payload bytes, on the right path and key; and nothing acknowledged is lost while the
 * upstream is down, across a restart too.
 */
@Tag("external")
class UpstreamForwardingTest {
    /** How far a test clock moves at each look of {@link #await}: half a spool round. */
    private static final Duration CLOCK_STEP = Duration.ofMillis(500);
    private static final Duration CLOCK_PACE = Duration.ofMillis(50);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Pattern KEY = Pattern.compile("sentry_key=([0-9a-f]{32})|//([0-9a-f]{32})@");

    private static TestUpstream upstream;
    /** A bucket of each test's own, so that no spool is left over from another test. */
    private EmbeddedS3Server s3;

    @BeforeAll
    static void startUpstream() throws Exception {
        upstream = new TestUpstream();
    }

    @AfterAll
    static void stopUpstream() {
        upstream.close();
    }

    @BeforeEach
    void startS3() {
        s3 = EmbeddedS3Server.inMemory();
        upstream.answer(request -> TestUpstream.Answer.ok());
    }

    @AfterEach
    void stopS3() {
        s3.close();
    }

    private static Map<String, Object> upstreamProperties(Object... more) {
        Map<String, Object> properties = new HashMap<>(Map.of("relay.upstream.url", upstream.uri().toString(),
                "relay.upstream.retry-initial", "100ms", "relay.upstream.retry-max", "300ms",
                "relay.upstream.client-report-interval", "300ms"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put((String) more[i], more[i + 1]);
        }
        return properties;
    }

    @Test
    void everyItemTheRelayDoesNotConsumeArrivesUpstreamOnceWithItsBytesPathAndKey() throws InterruptedException {
        int before = upstream.accepted().size();
        List<String> expected;
        try (RunningRelay relay = RunningRelay.start(s3, upstreamProperties())) {
            expected = replayAll(relay.client(), false);
            awaitItems(before, expected.size());
        }
        List<String> arrived = arrivedSince(before);
        assertEquals(sorted(expected), sorted(arrived));
        assertTrue(arrived.stream().noneMatch(item -> item.contains("|profile_chunk|")), "chunks went upstream");
        for (TestUpstream.Received received : upstream.accepted().subList(before, upstream.accepted().size())) {
            assertEquals("application/x-sentry-envelope", received.header("Content-Type"));
            assertTrue(received.header("X-Forwarded-For").endsWith("127.0.0.1"), received.header("X-Forwarded-For"));
            assertEquals(null, received.header("Authorization"));
            assertEquals(null, received.header("Cookie"));
        }
    }

    @Test
    void withForwardProfileChunksEveryChunkArrivesUpstreamOnceAfterItIsArchived() throws InterruptedException {
        int before = upstream.accepted().size();
        List<String> expected;
        try (RunningRelay relay = RunningRelay.start(s3,
                upstreamProperties("relay.upstream.forward-profile-chunks", "true"))) {
            expected = replayAll(relay.client(), true);
            awaitItems(before, expected.size());
        }
        assertEquals(sorted(expected), sorted(arrivedSince(before)));
        assertTrue(expected.stream().filter(item -> item.contains("|profile_chunk|")).count() >= 6);
    }

    @Test
    void anUpstreamOutageLosesNothingAndTheSdkGets200Throughout() throws InterruptedException {
        int before = upstream.accepted().size();
        AtomicInteger refused = new AtomicInteger();
        upstream.answer(request -> refused.incrementAndGet() <= 8
                ? new TestUpstream.Answer(503, Map.of()) : TestUpstream.Answer.ok());
        List<String> expected;
        try (RunningRelay relay = RunningRelay.start(s3, upstreamProperties())) {
            expected = replayAll(relay.client(), false);
            awaitItems(before, expected.size());
        } finally {
            upstream.answer(request -> TestUpstream.Answer.ok());
        }
        assertTrue(refused.get() > 8, "the upstream refused " + refused.get() + " times");
        assertEquals(sorted(expected), sorted(arrivedSince(before)));
    }

    @Test
    void envelopesSpooledDuringAnOutageAreSentOnceAfterARestart() throws InterruptedException {
        int before = upstream.accepted().size();
        upstream.answer(request -> new TestUpstream.Answer(503, Map.of()));
        List<String> expected;
        // the stopped relay may still hold a claim on the envelope it was last trying; it lapses after one to two
        // claims, so a short claim keeps the wait below the test's
        try (RunningRelay relay = RunningRelay.start(s3, upstreamProperties("relay.upstream.queue-envelopes", "1",
                "relay.upstream.spool-claim", "3s"))) {
            expected = replayAll(relay.client(), false);
        }
        assertEquals(before, upstream.accepted().size(), "nothing was taken while the upstream was down");
        upstream.answer(request -> TestUpstream.Answer.ok());
        try (RunningRelay restarted = RunningRelay.start(s3, upstreamProperties("test.clock", "manual"))) {
            awaitItems(before, expected.size(), restarted);
            awaitQuiet(List.of(restarted.uri()), restarted);
        }
        assertEquals(sorted(expected), sorted(arrivedSince(before)));
    }

    @Test
    void twoReplicasDrainingOneSpoolSendEachEnvelopeOnce() throws InterruptedException {
        int before = upstream.accepted().size();
        upstream.answer(request -> new TestUpstream.Answer(503, Map.of()));
        List<String> expected;
        // the stopped relay may still hold a claim on the envelope it was last trying; it lapses after one to two
        // claims, so a short claim keeps the wait below the test's
        try (RunningRelay relay = RunningRelay.start(s3, upstreamProperties("relay.upstream.queue-envelopes", "1",
                "relay.upstream.spool-claim", "3s"))) {
            expected = replayAll(relay.client(), false);
        }
        upstream.answer(request -> TestUpstream.Answer.ok());
        try (RunningRelay first = RunningRelay.start(s3, upstreamProperties("test.clock", "manual"));
             RunningRelay second = RunningRelay.start(s3, upstreamProperties("test.clock", "manual"))) {
            awaitItems(before, expected.size(), first, second);
            awaitQuiet(List.of(first.uri(), second.uri()), first, second);
        }
        assertEquals(sorted(expected), sorted(arrivedSince(before)), "each spooled envelope once, by one replica");
    }

    @Test
    void otherSentryEndpointsArePassedOnAsTheyAreAndAre404WithoutAnUpstream() {
        byte[] event = "{\"message\":\"stored\"}".getBytes(StandardCharsets.UTF_8);
        int before = upstream.received().size();
        try (RunningRelay relay = RunningRelay.start(s3, upstreamProperties())) {
            RelayClient.Answer answer = relay.client().post("/api/7/store/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                    event, "Content-Type", "application/json", "X-Forwarded-For", "203.0.113.9");
            assertEquals(200, answer.status(), answer.raw());
        }
        TestUpstream.Received stored = upstream.received().get(before);
        assertEquals("/api/7/store/", stored.path());
        assertEquals("stored", stored.header().get("message").asText());
        assertEquals("203.0.113.9, 127.0.0.1", stored.header("X-Forwarded-For"));
        try (RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            RelayClient.Answer answer = relay.client().post("/api/7/store/", event);
            assertEquals(404, answer.status(), answer.raw());
            assertEquals("not found", answer.detail());
        }
    }

    @Test
    void envelopesAcknowledgedDuringAnOutageSurviveARelayKilledWithSigkill(@TempDir Path work) throws Exception {
        upstream.answer(request -> new TestUpstream.Answer(503, Map.of()));
        int before = upstream.accepted().size();
        List<String> expected;
        // the killed relay may hold a claim on the spooled envelope it was trying; it lapses after one to two claims
        String[] properties = {"relay.upstream.url=" + upstream.uri(), "relay.upstream.retry-initial=100ms",
                "relay.upstream.retry-max=300ms", "relay.upstream.spool-claim=3s"};
        try (ForkedRelay killed = ForkedRelay.start(256, work, properties)) {
            expected = replayAll(new RelayClient(killed.base()), false);
            long envelopes = Fixtures.sdkRequests().stream().filter(r -> !replayExpectation(r, false).isEmpty())
                    .count();
            Await.until("all " + envelopes + " envelopes spooled", WAIT, () -> PrometheusScrape.of(killed.base())
                    .valueOrZeroBeforeFirstUse("relay_upstream_envelopes_total", "outcome", "spooled") >= envelopes);
        }
        upstream.answer(request -> TestUpstream.Answer.ok());
        try (ForkedRelay restarted = ForkedRelay.start(256, work, properties)) {
            awaitItems(before, expected.size());
            awaitQuiet(List.of(restarted.base()));
        }
        assertEquals(sorted(expected), sorted(arrivedSince(before)));
    }

    /** Replays every recorded SDK request; returns what should arrive upstream, one line an item. */
    private static List<String> replayAll(RelayClient client, boolean chunksToo) {
        List<String> expected = new ArrayList<>();
        for (SdkRequest request : Fixtures.sdkRequests()) {
            RelayClient.Answer answer = client.replay(request);
            assertEquals(200, answer.status(), request.name() + ": " + answer.raw());
            expected.addAll(replayExpectation(request, chunksToo));
        }
        return expected;
    }

    /** What of one recorded request should arrive upstream, one line an item. */
    private static List<String> replayExpectation(SdkRequest request, boolean chunksToo) {
        List<String> expected = new ArrayList<>();
        String project = request.path().split("/")[2];
        String key = keyOf(request);
        EnvelopeReader reader = new EnvelopeReader(new ByteArrayInputStream(request.envelope()), 1 << 20);
        reader.readHeaders();
        ItemHeader item;
        while ((item = reader.nextItem()) != null) {
            byte[] payload = reader.readPayload(Integer.MAX_VALUE);
            if (chunksToo || !item.isProfileChunk()) {
                expected.add(line(project, key, item.type(), payload));
            }
        }
        return expected;
    }

    private static String keyOf(SdkRequest request) {
        StringBuilder where = new StringBuilder(request.query());
        request.headers().forEach(h -> where.append(' ').append(h.value()));
        where.append(' ').append(new String(request.envelope(), 0, Math.min(2048, request.envelope().length),
                StandardCharsets.UTF_8));
        Matcher m = KEY.matcher(where);
        assertTrue(m.find(), "no key in " + request.name());
        return m.group(1) != null ? m.group(1) : m.group(2);
    }

    private static List<String> arrivedSince(int before) {
        List<String> arrived = new ArrayList<>();
        List<TestUpstream.Received> accepted = upstream.accepted();
        for (TestUpstream.Received received : accepted.subList(before, accepted.size())) {
            String project = received.path().split("/")[2];
            Matcher m = KEY.matcher(received.header("X-Sentry-Auth"));
            assertTrue(m.find(), received.header("X-Sentry-Auth"));
            assertEquals("/api/" + project + "/envelope/", received.path());
            for (TestUpstream.Item item : received.items()) {
                if (!item.type().equals("client_report")) {
                    arrived.add(line(project, m.group(1), item.type(), item.payload()));
                }
            }
        }
        return arrived;
    }

    /** One item as a line: project, key, type, and the SHA-256 of its payload (short, and unequal when it is). */
    private static String line(String project, String key, String type, byte[] payload) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(payload);
            return project + "|" + key + "|" + type + "|" + HexFormat.of().formatHex(digest, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> sorted(List<String> lines) {
        return lines.stream().sorted().toList();
    }

    /** Until {@code count} items have arrived since {@code before}, moving the clocks of {@code moving}. */
    private static void awaitItems(int before, int count, RunningRelay... moving) throws InterruptedException {
        Await.until(() -> "items upstream: " + arrivedSince(before).size() + " of " + count + "; received "
                + upstream.received().stream().map(r -> r.status() + " " + r.items().stream()
                .map(TestUpstream.Item::type).toList()).toList(), WAIT,
                moving(() -> arrivedSince(before).size() >= count, moving));
    }

    /**
     * Until every relay's spool and queue are empty: then nothing more goes upstream, so anything sent twice has
     * arrived before the items are compared. A relay that listed the spool holds every envelope spooled before it
     * started, and counts it down only once the envelope is deleted after its sending; a relay that has not listed
     * it yet will find it empty.
     */
    private static void awaitQuiet(List<URI> relays, RunningRelay... moving) throws InterruptedException {
        Await.until("every relay's upstream spool and queue empty", WAIT,
                moving(() -> relays.stream().allMatch(UpstreamForwardingTest::idle), moving));
    }

    /**
     * The condition, looked at after the clocks of {@code relays} (on test clocks) moved on by {@link #CLOCK_STEP}
     * for every {@link #CLOCK_PACE} of real time, so that their spool rounds run and claims lapse while the test
     * waits, at a pace their background threads keep up with.
     */
    private static BooleanSupplier moving(BooleanSupplier condition, RunningRelay... relays) {
        long[] moved = {System.nanoTime()};
        return () -> {
            if (System.nanoTime() - moved[0] >= CLOCK_PACE.toNanos()) {
                moved[0] = System.nanoTime();
                for (RunningRelay relay : relays) {
                    relay.clock().advance(CLOCK_STEP);
                }
            }
            return condition.getAsBoolean();
        };
    }

    private static boolean idle(URI relay) {
        PrometheusScrape metrics = PrometheusScrape.of(relay);
        return metrics.value("relay_upstream_spool_depth") == 0 && metrics.value("relay_upstream_queue_depth") == 0;
    }
}
