package chunkrelay.envelope.sdk;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.SpanTimeline;
import chunkrelay.translate.TranslationContext;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The span-link check of the live Python test, on the recorded Python capture (the same workload, manual lifecycle):
 * the relay's linking of its chunk to its transaction passes, and links that are missing or point at spans that do
 * not cover their samples fail.
 */
class SpanLinkAssertionsTest {
    private static final String TRANSACTION = "python-2.75.0/001";
    private static final String CHUNK = "python-2.75.0/002";

    @Test
    void acceptsTheRelaysLinksOfTheRecordedPythonChunk() {
        assertDoesNotThrow(() -> check(linked(true)));
    }

    @Test
    void rejectsAChunkTranslatedWithoutItsSpans() {
        AssertionError error = assertThrows(AssertionError.class, () -> check(linked(false)));
        assertTrue(error.getMessage().matches("python SDK, step 'span links': 0 of \\d+ samples taken inside a span"
                + " link to it, expected at least 95%"), error.getMessage());
    }

    @Test
    void rejectsLinksToSpansThatDoNotCoverTheirSamples() {
        ExportProfilesServiceRequest request = linked(true);
        ExportProfilesServiceRequest.Builder misdirected = request.toBuilder();
        Profile.Builder profile = misdirected.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0)
                .getProfilesBuilder(0);
        // every linked sample now names the first span linked to
        profile.getSamplesBuilderList().stream().filter(sample -> sample.getLinkIndex() != 0)
                .forEach(sample -> sample.setLinkIndex(1));
        AssertionError error = assertThrows(AssertionError.class, () -> check(misdirected.build()));
        assertTrue(error.getMessage().contains("samples link to a span that does not cover them"),
                error.getMessage());
    }

    private static void check(ExportProfilesServiceRequest request) {
        ReceivedEnvelope.Split split = ReceivedEnvelope.split(Fixtures.sdkRequest(TRANSACTION).envelope());
        List<ReceivedEnvelope> envelopes = List.of(new ReceivedEnvelope("/api/1/envelope/", "", Map.of(), 200,
                split.header(), split.items()));
        SpanLinkAssertions.assertSamplesLinkedToTheSpansThatRanThem("python", envelopes, List.of(request),
                PythonSdkRunner.SPAN_FUNCTIONS, 0.95);
    }

    private static ExportProfilesServiceRequest linked(boolean withSpans) {
        RecordedChunk recorded = Fixtures.sdkChunks().stream().filter(c -> c.request().equals(CHUNK)).findFirst()
                .orElseThrow();
        ChunkOutcome outcome = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES).process(recorded.payload(),
                new ChunkItemHeader("python", null));
        byte[] transaction = Fixtures.sdkItems().stream()
                .filter(item -> item.request().equals(TRANSACTION) && item.type().equals("transaction"))
                .findFirst().orElseThrow().payload();
        SpanTimeline spans = withSpans ? SpanTimeline.of(SpanItems.read("transaction", transaction).spans())
                : SpanTimeline.NONE;
        return new ChunkTranslator("chunk-relay", "test").translate(((ChunkOutcome.Accepted) outcome).chunk(),
                TranslationContext.forProject(1).withSpans(spans));
    }
}
