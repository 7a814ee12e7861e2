package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedItem;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.chunk.spans.SpanRecord;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 14's matching rule on the recorded SDK captures and on hand-made spans: a sample links to the innermost span
 * covering it on its thread, samples of other threads, outside every span or under spans that do not nest stay
 * unlinked; the counts of the trace-links research note (section 4) come out.
 */
class SpanLinkingTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    private static List<SpanRecord> spansOf(String request) {
        List<SpanRecord> spans = new ArrayList<>();
        for (RecordedItem item : Fixtures.sdkItems()) {
            if (item.request().equals(request) && SpanItems.carriesSpans(item.type())) {
                spans.addAll(SpanItems.read(item.type(), item.payload()).spans());
            }
        }
        return spans;
    }

    private static ChunkTranslator.Translated translate(ProfileChunk chunk, List<SpanRecord> spans) {
        ChunkTranslator.Translated translated = TRANSLATOR.translateWithLinks(chunk,
                TranslationContext.forProject(1).withSpans(SpanTimeline.of(spans)));
        OtlpInvariants.assertValid(translated.request());
        assertEquals(List.of(), OtlpInvariants.checkLinkedTimestamps(translated.request(), spans));
        return translated;
    }

    /** Linked samples by span id, counted from the request itself. */
    private static Map<String, Integer> samplesBySpan(ExportProfilesServiceRequest request) {
        Map<String, Integer> counts = new HashMap<>();
        List<Link> links = request.getDictionary().getLinkTableList();
        Profile profile = request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        for (Sample sample : profile.getSamplesList()) {
            if (sample.getLinkIndex() != 0) {
                String span = HexFormat.of().formatHex(links.get(sample.getLinkIndex()).getSpanId().toByteArray());
                counts.merge(span, sample.getTimestampsUnixNanoCount(), Integer::sum);
            }
        }
        return counts;
    }

    /** Samples of thread {@code threadId} in {@code [start, end)}, counted from the chunk. */
    private static int samplesOfThreadIn(ProfileChunk chunk, String threadId, long start, long end) {
        int count = 0;
        for (int s = 0; s < chunk.sampleCount(); s++) {
            long t = chunk.sampleTimestampNanos(s);
            if (chunk.threadId(chunk.sampleThreadIndex(s)).equals(threadId) && start <= t && t < end) {
                count++;
            }
        }
        return count;
    }

    @Test
    void javaCaptureLinksMainThreadSamplesOfBothChunksToTheInnermostSpanAndNothingElse() {
        List<SpanRecord> spans = spansOf("java-8.43.0/002");
        SpanRecord root = spans.get(0);
        SpanRecord phase1 = spans.get(1);
        SpanRecord phase2 = spans.get(2);
        int[] expectedInRoot = {965, 469};
        String[] chunks = {"java-8.43.0/001", "java-8.43.0/003"};
        for (int c = 0; c < chunks.length; c++) {
            ProfileChunk chunk = FixtureChunks.sdkChunk(chunks[c]).chunk();
            ChunkTranslator.Translated translated = translate(chunk, spans);
            int inRoot = samplesOfThreadIn(chunk, "1", root.startNanos(), root.endNanos());
            assertEquals(expectedInRoot[c], inRoot, "the research note's count for " + chunks[c]);
            assertEquals(inRoot, translated.linkedSamples(), "only main-thread samples inside the transaction");
            assertEquals(0, translated.ambiguousSamples());

            Map<String, Integer> bySpan = samplesBySpan(translated.request());
            int inPhase1 = samplesOfThreadIn(chunk, "1", phase1.startNanos(), phase1.endNanos());
            int inPhase2 = samplesOfThreadIn(chunk, "1", phase2.startNanos(), phase2.endNanos());
            assertEquals(inPhase1, bySpan.getOrDefault(phase1.spanId(), 0), chunks[c]);
            assertEquals(inPhase2, bySpan.getOrDefault(phase2.spanId(), 0), chunks[c]);
            assertEquals(inRoot - inPhase1 - inPhase2, bySpan.getOrDefault(root.spanId(), 0), chunks[c]);
            assertTrue(inPhase1 + inPhase2 > 0);
        }
    }

    @Test
    void nodeCaptureLinksItsOnlyThreadThroughSpansWithoutThreadOnceChildrenInheritTheSegmentsProfiler() {
        List<SpanRecord> spans = new ArrayList<>(spansOf("node-11.1.0/001"));
        spans.addAll(spansOf("node-11.1.0/002"));
        SpanRecord segment = spans.stream().filter(SpanRecord::segment).findFirst().orElseThrow();
        List<SpanRecord> resolved = spans.stream().map(s -> s.inheritFrom(segment)).toList();

        ProfileChunk chunk = FixtureChunks.sdkChunk("node-11.1.0/003").chunk();
        ChunkTranslator.Translated translated = translate(chunk, resolved);
        assertEquals(955, chunk.sampleCount());
        assertEquals(954, translated.linkedSamples());
        Map<String, Integer> bySpan = samplesBySpan(translated.request());
        assertEquals(425, bySpan.get("99834c68c4c58ec7"), "phase-1");
        assertEquals(528, bySpan.get("89bc23525521a8b4"), "phase-2");
        assertEquals(1, bySpan.get("b23a96e17925a443"), "the segment between its children");
        assertEquals(3, translated.request().getDictionary().getLinkTableCount() - 1, "one link per span used");
    }

    /**
     * The Python capture: three workload threads, each span on the thread it started on; the main thread's nested
     * spans and the two workers' spans (one of them waiting) all take samples, SDK threads none.
     */
    @Test
    void pythonCaptureLinksEachThreadsSamplesToTheSpansOfThatThread() {
        List<SpanRecord> spans = spansOf("python-2.75.0/001");
        ProfileChunk chunk = FixtureChunks.sdkChunk("python-2.75.0/002").chunk();
        ChunkTranslator.Translated translated = translate(chunk, spans);

        assertEquals(1655, chunk.sampleCount());
        assertEquals(985, translated.linkedSamples());
        // sentry-sdk times a span's end as its wall-clock start plus a monotonic duration: the last Fibonacci span
        // of the primes worker ends 2 us after its parent, so the two samples they share do not nest
        assertEquals(2, translated.ambiguousSamples());
        Map<String, String> threadOfSpan = new HashMap<>();
        spans.forEach(span -> threadOfSpan.put(span.spanId(), span.threadId()));
        Map<String, Integer> byThread = new HashMap<>();
        samplesBySpan(translated.request()).forEach((span, count) -> byThread.merge(threadOfSpan.get(span), count,
                Integer::sum));
        assertEquals(3, byThread.size(), "main thread and the two workers: " + byThread);
    }

    @Test
    void overlappingSpansThatDoNotNestLeaveTheirSharedSamplesUnlinkedAsAmbiguous() {
        TestChunk builder = new TestChunk();
        int stack = builder.stack(builder.frame(TestChunk.function("handle", "app.py", 1)));
        for (int ms = 0; ms < 10; ms++) {
            builder.sample(ms * 1_000_000L, stack, "7");
        }
        builder.thread("7", "loop", null);
        // A covers [1, 6) ms, B covers [4, 9) ms: 4 and 5 are in both, and neither contains the other
        List<SpanRecord> spans = List.of(span("a000000000000001", "7", 1, 6), span("b000000000000002", "7", 4, 9));
        ChunkTranslator.Translated translated = translate(builder.build(), spans);
        assertEquals(6, translated.linkedSamples(), "1, 2, 3 to A and 6, 7, 8 to B");
        assertEquals(2, translated.ambiguousSamples());
        assertEquals(2, translated.unlinkedSamples(), "0 and 9");
        Map<String, Integer> bySpan = samplesBySpan(translated.request());
        assertEquals(Map.of("a000000000000001", 3, "b000000000000002", 3), bySpan);
    }

    @Test
    void nestedSpansLinkToTheInnermostAndASpanEndIsExclusive() {
        TestChunk builder = new TestChunk();
        int stack = builder.stack(builder.frame(TestChunk.function("work", "app.py", 1)));
        for (int ms = 0; ms < 10; ms++) {
            builder.sample(ms * 1_000_000L, stack, "7");
            builder.sample(ms * 1_000_000L, stack, "8");
        }
        builder.thread("7", "main", null).thread("8", "worker", null);
        List<SpanRecord> spans = List.of(span("a000000000000001", "7", 0, 10), span("b000000000000002", "7", 2, 5),
                span("c000000000000003", "7", 3, 4), span("d000000000000004", "8", 8, 9));
        ChunkTranslator.Translated translated = translate(builder.build(), spans);
        Map<String, Integer> bySpan = samplesBySpan(translated.request());
        assertEquals(Map.of("a000000000000001", 7, "b000000000000002", 2, "c000000000000003", 1,
                "d000000000000004", 1), bySpan);
        assertEquals(0, translated.ambiguousSamples());
        Profile profile = translated.request().getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        assertEquals(5, profile.getSamplesCount(), "one Sample per (stack, thread, link)");
    }

    @Test
    void spanWithoutThreadLinksOnlyAChunkWithExactlyOneThread() {
        List<SpanRecord> spans = List.of(span("a000000000000001", null, 0, 10));
        TestChunk one = new TestChunk();
        int stack = one.stack(one.frame(TestChunk.function("work", "app.js", 1)));
        one.sample(1_000_000, stack, "0").thread("0", "main", null);
        assertEquals(1, translate(one.build(), spans).linkedSamples());

        TestChunk two = new TestChunk();
        stack = two.stack(two.frame(TestChunk.function("work", "app.js", 1)));
        two.sample(1_000_000, stack, "0").sample(1_000_000, stack, "1");
        two.thread("0", "main", null).thread("1", "worker", null);
        assertEquals(0, translate(two.build(), spans).linkedSamples());
    }

    @Test
    void withoutSpansTheOutputIsTheUnlinkedTranslation() {
        ProfileChunk chunk = FixtureChunks.sdkChunk("java-8.43.0/001").chunk();
        ExportProfilesServiceRequest plain = TRANSLATOR.translate(chunk, TranslationContext.forProject(1));
        ExportProfilesServiceRequest none = TRANSLATOR.translate(chunk,
                TranslationContext.forProject(1).withSpans(SpanTimeline.of(List.of())));
        assertEquals(plain, none);
        assertEquals(1, plain.getDictionary().getLinkTableCount(), "only the zero link");
    }

    private static SpanRecord span(String spanId, String thread, int startMs, int endMs) {
        return new SpanRecord("acaf88a141894171b76154725292c830", spanId, null, null, false,
                "4d229f1d3807421ba62a5f8bc295d836", thread, TestChunk.T0 + startMs * 1_000_000L,
                TestChunk.T0 + endMs * 1_000_000L);
    }
}
