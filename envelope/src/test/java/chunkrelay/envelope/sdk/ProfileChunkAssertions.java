package chunkrelay.envelope.sdk;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * Checks on what an SDK run delivered, independent of who received it: the envelopes as a relay answered them,
 * and the profile chunks (Sample Format V2 JSON) that came out of them.
 */
public final class ProfileChunkAssertions {

    /** Relay drops a thread with fewer than two samples, so the busy thread must show each function at least twice. */
    private static final int MIN_SAMPLES = 2;

    private ProfileChunkAssertions() {
    }

    public static void assertEveryEnvelopeAccepted(String sdk, List<ReceivedEnvelope> envelopes) {
        if (envelopes.isEmpty()) {
            throw new AssertionError(sdk + " SDK: no envelope reached the relay");
        }
        List<String> refused = envelopes.stream().filter(envelope -> !envelope.accepted())
                .map(envelope -> envelope.status() + " for " + envelope.path() + "?" + envelope.query())
                .toList();
        if (!refused.isEmpty()) {
            throw new AssertionError(sdk + " SDK: " + refused.size() + " of " + envelopes.size()
                    + " envelopes were not accepted: " + refused);
        }
    }

    /**
     * At least one chunk; every chunk of the expected platform and client; and each busy function both among a
     * chunk's frames and on at least two samples of the busy thread, found by walking the samples' stacks.
     */
    public static void assertBusyWorkProfiled(ExpectedProfile expected, List<JsonNode> chunks) {
        String sdk = expected.sdk() + " SDK";
        if (chunks.isEmpty()) {
            throw new AssertionError(sdk + ": no profile_chunk received");
        }
        for (JsonNode chunk : chunks) {
            String where = sdk + ", chunk " + chunk.path("chunk_id").asText("(no chunk_id)");
            requireEqual(where + ": platform", expected.platform(), chunk.path("platform").asText());
            requireEqual(where + ": version", "2", chunk.path("version").asText());
            requireEqual(where + ": client_sdk.name", expected.clientSdkName(),
                    chunk.path("client_sdk").path("name").asText());
        }
        for (String function : expected.busyFunctions()) {
            boolean inFrames = chunks.stream().anyMatch(chunk -> !frameIndexes(chunk, function).isEmpty());
            if (!inFrames) {
                throw new AssertionError(sdk + ": no frame with function '" + function + "' in " + chunks.size()
                        + " chunk(s); functions seen: " + sampleOfFunctionNames(chunks));
            }
            long samples = chunks.stream()
                    .mapToLong(chunk -> samplesOnThreadThrough(chunk, expected.busyThread(), function)).sum();
            if (samples < MIN_SAMPLES) {
                throw new AssertionError(sdk + ": '" + function + "' is on " + samples + " sample(s) of the "
                        + expected.busyThread() + ", expected at least " + MIN_SAMPLES + "; threads sampled: "
                        + sampledThreads(chunks));
            }
        }
    }

    private static Set<Integer> frameIndexes(JsonNode chunk, String function) {
        Set<Integer> indexes = new HashSet<>();
        JsonNode frames = chunk.path("profile").path("frames");
        for (int i = 0; i < frames.size(); i++) {
            if (function.equals(frames.get(i).path("function").asText())) {
                indexes.add(i);
            }
        }
        return indexes;
    }

    private static long samplesOnThreadThrough(JsonNode chunk, ExpectedProfile.BusyThread thread, String function) {
        Set<Integer> frames = frameIndexes(chunk, function);
        Set<String> threadIds = thread.threadIds(chunk);
        JsonNode profile = chunk.path("profile");
        JsonNode stacks = profile.path("stacks");
        Set<Integer> stacksThrough = new HashSet<>();
        for (int i = 0; i < stacks.size(); i++) {
            for (JsonNode frameIndex : stacks.get(i)) {
                if (frames.contains(frameIndex.asInt())) {
                    stacksThrough.add(i);
                    break;
                }
            }
        }
        long count = 0;
        for (JsonNode sample : profile.path("samples")) {
            if (threadIds.contains(sample.path("thread_id").asText())
                    && stacksThrough.contains(sample.path("stack_id").asInt(-1))) {
                count++;
            }
        }
        return count;
    }

    private static String sampleOfFunctionNames(List<JsonNode> chunks) {
        return chunks.stream()
                .flatMap(chunk -> StreamSupport.stream(
                        chunk.path("profile").path("frames").spliterator(), false))
                .map(frame -> frame.path("function").asText())
                .distinct().limit(30).collect(Collectors.joining(", "));
    }

    private static String sampledThreads(List<JsonNode> chunks) {
        return chunks.stream()
                .flatMap(chunk -> StreamSupport.stream(
                        chunk.path("profile").path("samples").spliterator(), false))
                .map(sample -> sample.path("thread_id").asText())
                .distinct().sorted().collect(Collectors.joining(", "));
    }

    private static void requireEqual(String what, String expected, String actual) {
        if (!expected.equals(actual)) {
            throw new AssertionError(what + " is '" + actual + "', expected '" + expected + "'");
        }
    }
}
