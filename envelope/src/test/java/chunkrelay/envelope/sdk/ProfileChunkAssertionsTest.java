package chunkrelay.envelope.sdk;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The end-to-end checks, run on chunks recorded from real SDKs, pass and fail where they should. */
class ProfileChunkAssertionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** In the recorded Java chunk, {@code workerSpinCpu} ran on "fixture-worker" and {@code busyLoop} on "main". */
    private static ExpectedProfile java(String function, String threadName) {
        return new ExpectedProfile("java", "java", "sentry.java", List.of(function),
                new ExpectedProfile.ThreadName(threadName));
    }

    @Test
    void acceptsABusyMethodSampledOnItsNamedThread() throws IOException {
        List<JsonNode> chunks = List.of(chunk("java-8.43.0/001"));
        assertDoesNotThrow(() -> ProfileChunkAssertions.assertBusyWorkProfiled(java("workerSpinCpu",
                "fixture-worker"), chunks));
    }

    @Test
    void acceptsANodeFunctionSampledOnTheMainThread() throws IOException {
        ExpectedProfile expected = new ExpectedProfile("node", "node", "sentry.javascript.node", List.of("busyLoop"),
                new ExpectedProfile.ThreadId("0"));
        List<JsonNode> chunks = List.of(chunk("node-11.1.0/003"));
        assertDoesNotThrow(() -> ProfileChunkAssertions.assertBusyWorkProfiled(expected, chunks));
    }

    @Test
    void rejectsABusyMethodSampledOnlyOnAnotherThread() throws IOException {
        List<JsonNode> chunks = List.of(chunk("java-8.43.0/001"));
        AssertionError error = assertThrows(AssertionError.class,
                () -> ProfileChunkAssertions.assertBusyWorkProfiled(java("busyLoop", "fixture-worker"), chunks));
        assertTrue(error.getMessage().contains("'busyLoop' is on 0 sample(s)"), error.getMessage());
    }

    @Test
    void rejectsChunksWithoutTheBusyFunctions() throws IOException {
        List<JsonNode> chunks = List.of(chunk("java-8.43.0/001"));
        ExpectedProfile expected = new ExpectedProfile("java", "java", "sentry.java", JavaSdkRunner.BUSY_METHODS,
                new ExpectedProfile.ThreadName(JavaSdkDriver.BUSY_THREAD_NAME));
        AssertionError error = assertThrows(AssertionError.class,
                () -> ProfileChunkAssertions.assertBusyWorkProfiled(expected, chunks));
        assertTrue(error.getMessage().startsWith("java SDK: no frame with function 'chunkRelayJavaBusyPrimes'"),
                error.getMessage());
    }

    @Test
    void rejectsAChunkOfAnotherPlatform() throws IOException {
        List<JsonNode> chunks = List.of(chunk("node-11.1.0/003"));
        AssertionError error = assertThrows(AssertionError.class,
                () -> ProfileChunkAssertions.assertBusyWorkProfiled(java("busyLoop", "main"), chunks));
        assertTrue(error.getMessage().contains("platform is 'node', expected 'java'"), error.getMessage());
    }

    @Test
    void rejectsARunWithoutChunks() {
        AssertionError error = assertThrows(AssertionError.class,
                () -> ProfileChunkAssertions.assertBusyWorkProfiled(java("busyLoop", "main"), List.of()));
        assertTrue(error.getMessage().equals("java SDK: no profile_chunk received"), error.getMessage());
    }

    private static JsonNode chunk(String request) throws IOException {
        for (RecordedChunk chunk : Fixtures.sdkChunks()) {
            if (chunk.request().equals(request)) {
                return JSON.readTree(chunk.payload());
            }
        }
        throw new IllegalArgumentException("no recorded chunk in " + request);
    }
}
