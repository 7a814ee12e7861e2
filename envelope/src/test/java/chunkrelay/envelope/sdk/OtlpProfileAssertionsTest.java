package chunkrelay.envelope.sdk;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The OTLP checks of the end-to-end test, run on translated recorded chunks, pass and fail where they should. */
class OtlpProfileAssertionsTest {

    @Test
    void acceptsABusyMethodOnSamplesOfItsNamedThread() {
        List<ExportProfilesServiceRequest> otlp = List.of(otlp("java-8.43.0/001"));
        assertDoesNotThrow(() -> OtlpProfileAssertions.assertBusyWorkProfiled(java("workerSpinCpu",
                "fixture-worker"), otlp));
    }

    @Test
    void acceptsANodeFunctionOnSamplesOfThreadZero() {
        ExpectedProfile expected = new ExpectedProfile("node", "node", "sentry.javascript.node", List.of("busyLoop"),
                new ExpectedProfile.ThreadId("0"));
        List<ExportProfilesServiceRequest> otlp = List.of(otlp("node-11.1.0/003"));
        assertDoesNotThrow(() -> OtlpProfileAssertions.assertBusyWorkProfiled(expected, otlp));
    }

    @Test
    void rejectsABusyMethodSampledOnlyOnAnotherThread() {
        List<ExportProfilesServiceRequest> otlp = List.of(otlp("java-8.43.0/001"));
        AssertionError error = assertThrows(AssertionError.class,
                () -> OtlpProfileAssertions.assertBusyWorkProfiled(java("busyLoop", "fixture-worker"), otlp));
        assertTrue(error.getMessage().startsWith("java SDK, step 'otlp': 'busyLoop' is on 0 sampled timestamp(s)"),
                error.getMessage());
    }

    @Test
    void rejectsAFunctionMissingFromTheStringTable() {
        List<ExportProfilesServiceRequest> otlp = List.of(otlp("java-8.43.0/001"));
        AssertionError error = assertThrows(AssertionError.class,
                () -> OtlpProfileAssertions.assertBusyWorkProfiled(java("chunkRelayJavaBusyPrimes", "main"), otlp));
        assertTrue(error.getMessage().startsWith("java SDK, step 'otlp': 'chunkRelayJavaBusyPrimes' is not in the"
                + " string table"), error.getMessage());
    }

    private static ExpectedProfile java(String function, String threadName) {
        return new ExpectedProfile("java", "java", "sentry.java", List.of(function),
                new ExpectedProfile.ThreadName(threadName));
    }

    private static ExportProfilesServiceRequest otlp(String request) {
        RecordedChunk recorded = Fixtures.sdkChunks().stream().filter(c -> c.request().equals(request)).findFirst()
                .orElseThrow();
        ChunkOutcome outcome = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES).process(recorded.payload(),
                new ChunkItemHeader(recorded.itemHeader().path("platform").asText(null), null));
        return new ChunkTranslator("chunk-relay", "test").translate(((ChunkOutcome.Accepted) outcome).chunk(),
                TranslationContext.forProject(1));
    }
}
