package chunkrelay.envelope.ingest;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.envelope.testing.TestUpstream;
import chunkrelay.storage.EmbeddedS3Server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Relay's limits per item type ({@code relay-server/src/utils/sizes.rs} at
 * 03742994d954c8ce034263b9203de83beadc9506): each type's largest item, number of items and total, at small
 * configured limits, through the real relay forwarding to a real upstream. An envelope over one is answered 413
 * naming the item as Relay does, and goes nowhere.
 */
class ItemLimitsTest {
    private static final int ITEM = 100;
    private static final int COUNT = 3;
    private static final int TOTAL = 250;

    private static EmbeddedS3Server s3;
    private static TestUpstream upstream;
    private static RunningRelay relay;
    private static RelayClient client;

    @BeforeAll
    static void start() throws Exception {
        s3 = EmbeddedS3Server.inMemory();
        upstream = new TestUpstream();
        upstream.answer(request -> TestUpstream.Answer.ok());
        Map<String, Object> properties = new HashMap<>();
        properties.put("relay.upstream.url", upstream.uri().toString());
        properties.put("relay.limits.max-chunk-bytes", ITEM);
        for (String size : new String[] {"event", "attachment", "replay-compressed", "sessions", "client-reports",
                "check-in", "statsd", "metric-buckets", "log", "trace-metric", "span"}) {
            properties.put("relay.limits.items.max-" + size + "-bytes", ITEM);
        }
        for (String count : new String[] {"attachment", "session", "client-reports", "standalone-span"}) {
            properties.put("relay.limits.items.max-" + count + "-count", COUNT);
        }
        properties.put("relay.limits.items.max-attachments-bytes", TOTAL);
        properties.put("relay.limits.items.max-container-bytes", TOTAL);
        relay = RunningRelay.start(s3, properties);
        client = relay.client();
    }

    @AfterAll
    static void stop() {
        relay.close();
        upstream.close();
        s3.close();
    }

    /** One item: its header line and its payload. */
    private record Item(String header, byte[] payload) {
    }

    /** An item with {@code length} and {@code extraHeader}'s fields, its payload JSON of {@code size} bytes. */
    private static Item item(String type, int size, String extraHeader) {
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) 'x');
        if (size >= 8) {
            byte[] open = Envelopes.bytes("{\"p\":\"");
            System.arraycopy(open, 0, payload, 0, open.length);
            payload[size - 2] = '"';
            payload[size - 1] = '}';
        }
        return new Item("{\"type\":\"" + type + "\",\"length\":" + size + extraHeader + "}", payload);
    }

    private static Item item(String type, int size) {
        return item(type, size, "");
    }

    private static Item[] items(int count, String type, int size) {
        Item[] items = new Item[count];
        Arrays.fill(items, item(type, size));
        return items;
    }

    private static byte[] envelope(Item... items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(Envelopes.bytes(Envelopes.header() + "\n"));
        for (Item item : items) {
            out.writeBytes(Envelopes.bytes(item.header() + "\n"));
            out.writeBytes(item.payload());
            out.write('\n');
        }
        return out.toByteArray();
    }

    private static void assertAccepted(Item... items) {
        RelayClient.Answer answer = client.post(PATH, envelope(items), "X-Sentry-Auth", AUTH);
        assertEquals(200, answer.status(), answer.raw());
    }

    private static void assertRefused(String itemName, Item... items) {
        RelayClient.Answer answer = client.post(PATH, envelope(items), "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status(), answer.raw());
        assertEquals("envelope exceeded size limits for type '" + itemName
                + "' (https://develop.sentry.dev/sdk/envelopes/#size-limits)", answer.detail());
    }

    @Test
    void eventLikeItemsShareOneItemOfTheEventSize() {
        // relay-server/src/utils/sizes.rs:28 at 03742994d954c8ce034263b9203de83beadc9506 (the limit)
        // relay-server/src/utils/sizes.rs:111 at 03742994d954c8ce034263b9203de83beadc9506 (the types sharing it)
        assertAccepted(item("transaction", ITEM), item("attachment", 1));
        assertRefused("transaction", item("transaction", ITEM + 1));
        assertRefused("transaction", item("transaction", 10), item("transaction", 10));
        assertRefused("transaction", item("event", 10), item("transaction", 10));
        assertRefused("event", item("replay_event", 10), item("event", 10));
        assertRefused("form_data", item("security", 10), item("form_data", 10));
        assertRefused("raw_security", item("raw_security", ITEM + 1));
        // relay-server/src/utils/sizes.rs:157 at 03742994d954c8ce034263b9203de83beadc9506 (the name of the type)
        assertRefused("user_report_v2", item("feedback", ITEM + 1));
    }

    @Test
    void attachmentsHaveAnItemSizeACountAndATotal() {
        // relay-server/src/utils/sizes.rs:33 at 03742994d954c8ce034263b9203de83beadc9506 (the limit)
        // relay-server/src/utils/sizes.rs:118 at 03742994d954c8ce034263b9203de83beadc9506 (the types sharing it)
        assertAccepted(item("attachment", ITEM), item("unreal_report", ITEM), item("user_report", TOTAL - 2 * ITEM));
        assertRefused("attachment:attachment", item("attachment", ITEM + 1));
        assertRefused("attachment:attachment", items(COUNT + 1, "attachment", 1));
        assertRefused("user_report", item("attachment", 1), item("unreal_report", 1), item("attachment", 1),
                item("user_report", 1));
        assertRefused("unreal_report", item("attachment", ITEM), item("attachment", ITEM),
                item("unreal_report", TOTAL - 2 * ITEM + 1));
        // relay-server/src/utils/sizes.rs:157 at 03742994d954c8ce034263b9203de83beadc9506 (named by attachment type)
        assertRefused("attachment:minidump", item("attachment", ITEM + 1, ",\"attachment_type\":\"event.minidump\""));
    }

    @Test
    void replayRecordingsAndVideosAreEachOneItemOfTheCompressedReplaySize() {
        // relay-server/src/utils/sizes.rs:38 at 03742994d954c8ce034263b9203de83beadc9506 (recordings)
        // relay-server/src/utils/sizes.rs:43 at 03742994d954c8ce034263b9203de83beadc9506 (videos)
        assertAccepted(item("replay_recording", ITEM), item("replay_video", ITEM));
        assertRefused("replay_recording", item("replay_recording", ITEM + 1));
        assertRefused("replay_recording", items(2, "replay_recording", 1));
        assertRefused("replay_video", item("replay_video", ITEM + 1));
        assertRefused("replay_video", items(2, "replay_video", 1));
    }

    @Test
    void sessionsHaveAnItemSizeACountAndATotal() {
        // relay-server/src/utils/sizes.rs:48 at 03742994d954c8ce034263b9203de83beadc9506 (the limit)
        // relay-server/src/utils/sizes.rs:121 at 03742994d954c8ce034263b9203de83beadc9506 (the types sharing it)
        assertAccepted(item("session", 30), item("sessions", 30), item("session", ITEM - 60));
        assertRefused("sessions", item("sessions", ITEM + 1));
        assertRefused("session", item("sessions", 1), item("session", 1), item("sessions", 1), item("session", 1));
        assertRefused("session", item("session", 40), item("session", 40), item("session", 40));
    }

    @Test
    void clientReportsHaveAnItemSizeACountAndATotal() {
        // relay-server/src/utils/sizes.rs:53 at 03742994d954c8ce034263b9203de83beadc9506
        assertAccepted(item("client_report", 30), item("client_report", 30), item("client_report", ITEM - 60));
        assertRefused("client_report", item("client_report", ITEM + 1));
        assertRefused("client_report", items(COUNT + 1, "client_report", 1));
        assertRefused("client_report", items(COUNT, "client_report", 40));
    }

    @Test
    void profilesAndProfileChunksShareOneItemOfTheProfileSize() {
        // relay-server/src/utils/sizes.rs:58 at 03742994d954c8ce034263b9203de83beadc9506 (the limit)
        // relay-server/src/utils/sizes.rs:123 at 03742994d954c8ce034263b9203de83beadc9506 (the types sharing it)
        assertAccepted(item("profile", ITEM));
        assertRefused("profile", item("profile", ITEM + 1));
        assertRefused("profile", items(2, "profile", 1));
        assertRefused("profile_chunk", item("profile", 1), item("profile_chunk", 1));
    }

    @Test
    void checkInsAreOneItemOfTheCheckInSize() {
        // relay-server/src/utils/sizes.rs:63 at 03742994d954c8ce034263b9203de83beadc9506
        assertAccepted(item("check_in", ITEM));
        assertRefused("check_in", item("check_in", ITEM + 1));
        assertRefused("check_in", items(2, "check_in", 1));
    }

    @Test
    void statsdIsOneItemOfTheStatsdSize() {
        // relay-server/src/utils/sizes.rs:68 at 03742994d954c8ce034263b9203de83beadc9506
        assertAccepted(item("statsd", ITEM));
        assertRefused("statsd", item("statsd", ITEM + 1));
        assertRefused("statsd", items(2, "statsd", 1));
    }

    @Test
    void metricBucketsAreOneItemOfTheMetricBucketsSize() {
        // relay-server/src/utils/sizes.rs:73 at 03742994d954c8ce034263b9203de83beadc9506
        assertAccepted(item("metric_buckets", ITEM));
        assertRefused("metric_buckets", item("metric_buckets", ITEM + 1));
        assertRefused("metric_buckets", items(2, "metric_buckets", 1));
    }

    @Test
    void aLogContainerIsOneItemWhoseLogsAreOfTheLogSizeOnAverageAndAllOfTheContainerSize() {
        // relay-server/src/utils/sizes.rs:78 at 03742994d954c8ce034263b9203de83beadc9506 (the limit)
        // relay-server/src/utils/sizes.rs:185 at 03742994d954c8ce034263b9203de83beadc9506 (a container's average)
        String container = ",\"content_type\":\"application/vnd.sentry.items.log+json\",\"item_count\":3";
        assertAccepted(item("log", 3 * ITEM - 60, container));
        assertAccepted(item("log", ITEM));
        assertRefused("log", item("log", ITEM + 1));
        assertRefused("log", item("log", 3 * ITEM - 60, ",\"item_count\":3"));
        assertRefused("log", item("log", 3 * ITEM + 3, container));
        assertRefused("log", item("log", TOTAL + 1, ",\"content_type\":\"application/vnd.sentry.items.log+json\","
                + "\"item_count\":30"));
        assertRefused("log", items(2, "log", 1));
    }

    @Test
    void aTraceMetricContainerIsOneItemWhoseMetricsAreOfTheTraceMetricSizeOnAverage() {
        // relay-server/src/utils/sizes.rs:88 at 03742994d954c8ce034263b9203de83beadc9506
        String container = ",\"content_type\":\"application/vnd.sentry.items.trace-metric+json\",\"item_count\":2";
        assertAccepted(item("trace_metric", 2 * ITEM, container));
        assertRefused("trace_metric", item("trace_metric", 2 * ITEM + 2, container));
        assertRefused("trace_metric", item("trace_metric", ITEM + 1));
        assertRefused("trace_metric", items(2, "trace_metric", 1));
    }

    @Test
    void aSpanContainerIsOneItemAndStandaloneSpansHaveTheirOwnCount() {
        // relay-server/src/utils/sizes.rs:93 at 03742994d954c8ce034263b9203de83beadc9506 (containers)
        // relay-server/src/utils/sizes.rs:103 at 03742994d954c8ce034263b9203de83beadc9506 (standalone spans)
        // relay-server/src/utils/sizes.rs:129 at 03742994d954c8ce034263b9203de83beadc9506 (which is which)
        String container = ",\"content_type\":\"application/vnd.sentry.items.span.v2+json\",\"item_count\":2";
        assertAccepted(item("span", 2 * ITEM, container), item("span", ITEM), item("span", ITEM),
                item("span", TOTAL - 2 * ITEM));
        assertRefused("span", item("span", 2 * ITEM, container), item("span", 2 * ITEM, container));
        assertRefused("span", item("span", 2 * ITEM + 2, container));
        assertRefused("span", item("span", ITEM + 1));
        assertRefused("span", items(COUNT + 1, "span", 10));
        assertRefused("span", items(COUNT, "span", ITEM - 10));
    }

    @Test
    void itemTypesRelayDoesNotKnowHaveNoLimit() {
        // relay-server/src/utils/sizes.rs:143 at 03742994d954c8ce034263b9203de83beadc9506
        assertAccepted(items(COUNT + 1, "mystery", TOTAL + 1));
    }

    @Test
    void anEnvelopeOverALimitIsNotForwardedAtAll() throws InterruptedException {
        // relay-server/src/utils/sizes.rs:13 at 03742994d954c8ce034263b9203de83beadc9506 (discarded whole)
        Item refusedMarker = new Item("{\"type\":\"check_in\"}", Envelopes.bytes("{\"refused\":true}"));
        assertRefused("transaction", refusedMarker, item("transaction", 10), item("transaction", 10));
        Item acceptedMarker = new Item("{\"type\":\"check_in\"}", Envelopes.bytes("{\"accepted\":true}"));
        assertAccepted(acceptedMarker, item("transaction", 10));
        Await.until("the accepted envelope upstream", Duration.ofSeconds(30), () -> carried("accepted"));
        assertTrue(!carried("refused"), "the refused envelope reached the upstream");
    }

    private static boolean carried(String marker) {
        return upstream.received().stream().flatMap(r -> r.items().stream())
                .anyMatch(i -> new String(i.payload(), StandardCharsets.UTF_8).contains(marker));
    }
}
