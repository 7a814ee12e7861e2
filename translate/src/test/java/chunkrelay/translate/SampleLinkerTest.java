package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedItem;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.chunk.spans.SpanRecord;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Linking a translation made without spans later gives what translating with the spans gives: the same samples
 * under the same links, the same counts, the same tables.
 */
class SampleLinkerTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    private static List<SpanRecord> spansOf(String... requests) {
        List<SpanRecord> spans = new ArrayList<>();
        for (RecordedItem item : Fixtures.sdkItems()) {
            if (List.of(requests).contains(item.request()) && SpanItems.carriesSpans(item.type())) {
                spans.addAll(SpanItems.read(item.type(), item.payload()).spans());
            }
        }
        return spans;
    }

    /** Both ways, checked equal; returns the later-linked one. */
    private static ChunkTranslator.Translated bothWays(ProfileChunk chunk, List<SpanRecord> spans) {
        SpanTimeline timeline = SpanTimeline.of(spans);
        ChunkTranslator.Translated direct = TRANSLATOR.translateWithLinks(chunk,
                TranslationContext.forProject(1).withSpans(timeline));
        ChunkTranslator.Translated later = SampleLinker.link(
                TRANSLATOR.translate(chunk, TranslationContext.forProject(1)), timeline);
        OtlpInvariants.assertValid(later.request());
        assertEquals(List.of(), OtlpInvariants.checkLinkedTimestamps(later.request(), spans));
        assertEquals(direct.linkedSamples(), later.linkedSamples());
        assertEquals(direct.unlinkedSamples(), later.unlinkedSamples());
        assertEquals(direct.ambiguousSamples(), later.ambiguousSamples());
        ProfilesDictionary a = direct.request().getDictionary();
        ProfilesDictionary b = later.request().getDictionary();
        assertEquals(a.getStringTableList(), b.getStringTableList());
        assertEquals(a.getAttributeTableList(), b.getAttributeTableList());
        assertEquals(a.getStackTableList(), b.getStackTableList());
        assertEquals(a.getLocationTableList(), b.getLocationTableList());
        assertEquals(a.getFunctionTableList(), b.getFunctionTableList());
        assertEquals(a.getMappingTableList(), b.getMappingTableList());
        assertEquals(new TreeSet<>(links(a)), new TreeSet<>(links(b)));
        assertEquals(a.getLinkTableCount(), b.getLinkTableCount(), "each link once");
        assertEquals(samples(direct.request()), samples(later.request()));
        Profile pa = profile(direct.request());
        Profile pb = profile(later.request());
        assertEquals(pa.getAttributeIndicesList(), pb.getAttributeIndicesList());
        assertEquals(pa.toBuilder().clearSamples().build(), pb.toBuilder().clearSamples().build());
        assertEquals(direct.request().getResourceProfiles(0).getResource(),
                later.request().getResourceProfiles(0).getResource());
        return later;
    }

    private static Profile profile(ExportProfilesServiceRequest request) {
        return request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
    }

    private static List<String> links(ProfilesDictionary dictionary) {
        return dictionary.getLinkTableList().stream().map(l -> HexFormat.of().formatHex(l.getTraceId().toByteArray())
                + "/" + HexFormat.of().formatHex(l.getSpanId().toByteArray())).toList();
    }

    /** Each sample as stack, attributes, link ids and timestamps, in a set: the order of groups aside. */
    private static TreeSet<String> samples(ExportProfilesServiceRequest request) {
        List<String> links = links(request.getDictionary());
        TreeSet<String> samples = new TreeSet<>();
        for (Sample sample : profile(request).getSamplesList()) {
            assertTrue(samples.add(sample.getStackIndex() + " " + sample.getAttributeIndicesList() + " "
                    + links.get(sample.getLinkIndex()) + " " + sample.getTimestampsUnixNanoList()), "one group each");
        }
        return samples;
    }

    @Test
    void javaChunksLinkedLaterMatchTheirTranslationWithTheTransactionsSpans() {
        List<SpanRecord> spans = spansOf("java-8.43.0/002");
        assertEquals(965, bothWays(FixtureChunks.sdkChunk("java-8.43.0/001").chunk(), spans).linkedSamples());
        assertEquals(469, bothWays(FixtureChunks.sdkChunk("java-8.43.0/003").chunk(), spans).linkedSamples());
    }

    @Test
    void aNodeChunkLinkedLaterThroughSpansWithoutThreadMatchesItsTranslation() {
        List<SpanRecord> spans = spansOf("node-11.1.0/001", "node-11.1.0/002");
        SpanRecord segment = spans.stream().filter(SpanRecord::segment).findFirst().orElseThrow();
        List<SpanRecord> resolved = spans.stream().map(s -> s.inheritFrom(segment)).toList();
        assertEquals(954, bothWays(FixtureChunks.sdkChunk("node-11.1.0/003").chunk(), resolved).linkedSamples());
    }

    @Test
    void ambiguousAndNestedSpansCountTheSameLinkedLater() {
        TestChunk builder = new TestChunk();
        int stack = builder.stack(builder.frame(TestChunk.function("handle", "app.py", 1)));
        int other = builder.stack(builder.frame(TestChunk.function("wait", "app.py", 9)));
        for (int ms = 0; ms < 12; ms++) {
            builder.sample(ms * 1_000_000L, ms % 3 == 0 ? other : stack, "7");
            builder.sample(ms * 1_000_000L, stack, "8");
        }
        builder.thread("7", "loop", null);
        builder.measurement("cpu_usage", new chunkrelay.chunk.Measurement("percent",
                new double[] {TestChunk.T0 / 1e9}, new double[] {12.5}));
        List<SpanRecord> spans = List.of(span("a000000000000001", "7", 1, 6), span("b000000000000002", "7", 4, 9),
                span("c000000000000003", "8", 0, 11), span("d000000000000004", "8", 2, 3));
        ChunkTranslator.Translated later = bothWays(builder.build(), spans);
        assertEquals(2, later.ambiguousSamples());
        assertEquals(6 + 11, later.linkedSamples());
    }

    @Test
    void withoutSpansTheTranslationIsTakenAsItIs() {
        ExportProfilesServiceRequest unlinked = TRANSLATOR.translate(
                FixtureChunks.sdkChunk("java-8.43.0/001").chunk(), TranslationContext.forProject(1));
        ChunkTranslator.Translated later = SampleLinker.link(unlinked, SpanTimeline.NONE);
        assertSame(unlinked, later.request());
        assertEquals(0, later.linkedSamples());
    }

    @Test
    void aTranslationLinkedAlreadyIsRefused() {
        List<SpanRecord> spans = spansOf("java-8.43.0/002");
        ExportProfilesServiceRequest linked = TRANSLATOR.translate(FixtureChunks.sdkChunk("java-8.43.0/001").chunk(),
                TranslationContext.forProject(1).withSpans(SpanTimeline.of(spans)));
        assertThrows(IllegalArgumentException.class, () -> SampleLinker.link(linked, SpanTimeline.of(spans)));
    }

    private static SpanRecord span(String spanId, String thread, int startMs, int endMs) {
        return new SpanRecord("acaf88a141894171b76154725292c830", spanId, null, null, false,
                "4d229f1d3807421ba62a5f8bc295d836", thread, TestChunk.T0 + startMs * 1_000_000L,
                TestChunk.T0 + endMs * 1_000_000L);
    }
}
