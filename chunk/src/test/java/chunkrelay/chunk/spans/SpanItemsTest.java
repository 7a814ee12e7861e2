package chunkrelay.chunk.spans;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedItem;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpanItemsTest {
    private static RecordedItem recorded(String request, String type) {
        return Fixtures.sdkItems().stream().filter(i -> i.request().equals(request) && i.type().equals(type))
                .findFirst().orElseThrow();
    }

    private static SpanItems.Batch read(String type, String json) {
        return SpanItems.read(type, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void recordedJavaTransactionGivesItsRootAndTwoChildrenOnThreadOneWithTheProfilerId() {
        SpanItems.Batch batch = SpanItems.read("transaction", recorded("java-8.43.0/002", "transaction").payload());
        assertEquals(0, batch.skipped());
        List<SpanRecord> spans = batch.spans();
        assertEquals(3, spans.size());
        SpanRecord root = spans.get(0);
        assertEquals("225dd1ae169e40f7", root.spanId());
        assertEquals("acaf88a141894171b76154725292c830", root.traceId());
        assertTrue(root.segment());
        assertEquals(1_795_314_530_962_511_000L, root.startNanos(), "exact decimal seconds, not a double");
        assertEquals(1_795_314_545_975_509_000L, root.endNanos());
        for (SpanRecord span : spans) {
            assertEquals("f99ed13589874b4b8bdd0a0bbe143288", span.profilerId());
            assertEquals("1", span.threadId());
            assertEquals("225dd1ae169e40f7", span.segmentId());
        }
        assertEquals("0d066ffb0de643e4", spans.get(1).spanId());
        assertEquals("225dd1ae169e40f7", spans.get(1).parentSpanId());
    }

    @Test
    void recordedNodeV2ChildHasNoProfilerIdUntilItsSegmentAndNoThread() {
        SpanItems.Batch first = SpanItems.read("span", recorded("node-11.1.0/001", "span").payload());
        assertEquals(1, first.spans().size());
        SpanRecord child = first.spans().get(0);
        assertNull(child.profilerId());
        assertNull(child.threadId());
        assertEquals("b23a96e17925a443", child.segmentId());

        SpanItems.Batch second = SpanItems.read("span", recorded("node-11.1.0/002", "span").payload());
        assertEquals(2, second.spans().size());
        SpanRecord segment = second.spans().get(1);
        assertTrue(segment.segment());
        assertEquals("b23a96e17925a443", segment.spanId());
        assertEquals(32, segment.profilerId().length());
        assertEquals(segment.profilerId(), child.inheritFrom(segment).profilerId());
    }

    @Test
    void numericAndZeroPaddedThreadIdsCompareAsCanonicalDecimals() {
        SpanItems.Batch batch = read("span", "{\"version\":2,\"items\":["
                + span("a000000000000001", "\"thread.id\":{\"value\":42,\"type\":\"integer\"}") + ","
                + span("a000000000000002", "\"thread.id\":{\"value\":\"0042\",\"type\":\"string\"}") + ","
                + span("a000000000000003", "\"thread.id\":{\"value\":\"worker-1\",\"type\":\"string\"}") + "]}");
        assertEquals(List.of("42", "42", "worker-1"), batch.spans().stream().map(SpanRecord::threadId).toList());
        assertEquals("0", ThreadIds.canonical("-0"));
        assertEquals("18446744073709551616", ThreadIds.canonical("18446744073709551616"));
    }

    @Test
    void dashedUppercaseProfilerIdIsNormalised() {
        SpanItems.Batch batch = read("span", "{\"version\":2,\"items\":[" + span("a000000000000001",
                "\"sentry.profiler_id\":{\"value\":\"F99ED135-8987-4B4B-8BDD-0A0BBE143288\",\"type\":\"string\"}")
                + "]}");
        assertEquals("f99ed13589874b4b8bdd0a0bbe143288", batch.spans().get(0).profilerId());
    }

    @Test
    void rfc3339TimesAreRead() {
        SpanItems.Batch batch = read("span", "{\"trace_id\":\"acaf88a141894171b76154725292c830\","
                + "\"span_id\":\"0d066ffb0de643e4\",\"start_timestamp\":\"2026-11-22T02:26:35.000001Z\","
                + "\"timestamp\":\"2026-11-22T02:26:36+00:00\",\"data\":{\"thread.id\":\"7\"}}");
        SpanRecord span = batch.spans().get(0);
        assertEquals(999_999_000L, span.endNanos() - span.startNanos());
        assertEquals("7", span.threadId());
    }

    @Test
    void malformedSpansAreSkippedOneByOneAndCounted() {
        SpanItems.Batch batch = read("span", "{\"version\":2,\"items\":["
                + span("a000000000000001", "") + ","
                // span id of the wrong length
                + span("a0000000000001", "") + ","
                // end before start
                + "{\"trace_id\":\"acaf88a141894171b76154725292c830\",\"span_id\":\"a000000000000004\","
                + "\"start_timestamp\":1795314531.0,\"end_timestamp\":1795314530.0},"
                // longer than a day
                + "{\"trace_id\":\"acaf88a141894171b76154725292c830\",\"span_id\":\"a000000000000005\","
                + "\"start_timestamp\":1795314531.0,\"end_timestamp\":1795414531.0},"
                // all-zero trace id
                + "{\"trace_id\":\"00000000000000000000000000000000\",\"span_id\":\"a000000000000006\","
                + "\"start_timestamp\":1795314531.0,\"end_timestamp\":1795314532.0}]}");
        assertEquals(1, batch.spans().size());
        assertEquals(4, batch.skipped());
    }

    @Test
    void anyBytesGiveABatchNeverAnException() {
        byte[] base = recorded("java-8.43.0/002", "transaction").payload();
        Random random = new Random(14);
        int read = 0;
        for (int round = 0; round < 2000; round++) {
            byte[] mutated = base.clone();
            for (int k = 0; k < 1 + random.nextInt(8); k++) {
                mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
            }
            SpanItems.Batch batch = SpanItems.read(round % 2 == 0 ? "transaction" : "span", mutated);
            read += batch.spans().size();
            for (SpanRecord span : batch.spans()) {
                assertTrue(span.endNanos() >= span.startNanos());
            }
        }
        assertTrue(read > 0, "some mutations still carry spans");
        assertEquals(1, SpanItems.read("transaction", new byte[SpanItems.MAX_ITEM_BYTES + 1]).skipped());
        assertEquals(1, read("transaction", "[".repeat(10_000)).skipped());
    }

    private static String span(String spanId, String attributes) {
        return "{\"trace_id\":\"acaf88a141894171b76154725292c830\",\"span_id\":\"" + spanId + "\","
                + "\"start_timestamp\":1795314530.5,\"end_timestamp\":1795314531.5,\"attributes\":{" + attributes + "}}";
    }
}
