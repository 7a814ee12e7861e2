package chunkrelay.translate;

import chunkrelay.chunk.ClientSdk;
import chunkrelay.chunk.DebugImage;
import chunkrelay.chunk.Frame;
import chunkrelay.chunk.Measurement;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.SampledTime;
import chunkrelay.chunk.SentryUuid;
import chunkrelay.chunk.ThreadMetadata;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds {@link ProfileChunk}s for unit tests, in the shape Relay's normalisation leaves them. */
final class TestChunk {
    static final SentryUuid CHUNK_ID = SentryUuid.parseOrNull("0432a0a4c25f4697bf9f0a2fcbe6a814");
    static final SentryUuid PROFILER_ID = SentryUuid.parseOrNull("4d229f1d3807421ba62a5f8bc295d836");
    static final long T0 = 1_710_805_788_500_000_000L;

    private String platform = "python";
    private String release = "shop@1.2.3";
    private String environment = "production";
    private ClientSdk sdk = new ClientSdk("sentry.python", "2.0.0");
    private final List<Frame> frames = new ArrayList<>();
    private final List<int[]> stacks = new ArrayList<>();
    private final List<long[]> samples = new ArrayList<>();
    private final List<String> sampleThreads = new ArrayList<>();
    private final Map<String, ThreadMetadata> threadMetadata = new HashMap<>();
    private final List<DebugImage> images = new ArrayList<>();
    private final Map<String, Measurement> measurements = new HashMap<>();
    private SampledTime sampledTime = SampledTime.WALL_CLOCK;

    static Frame function(String name, String file, int line) {
        return new Frame(name, null, file, null, line, null, null, null, null);
    }

    static Frame address(long instructionAddr) {
        return new Frame(null, null, null, null, null, null, null, instructionAddr, null);
    }

    TestChunk platform(String platform) {
        this.platform = platform;
        return this;
    }

    TestChunk sampledTime(SampledTime sampledTime) {
        this.sampledTime = sampledTime;
        return this;
    }

    TestChunk release(String release) {
        this.release = release;
        return this;
    }

    TestChunk environment(String environment) {
        this.environment = environment;
        return this;
    }

    TestChunk sdk(String name, String version) {
        this.sdk = new ClientSdk(name, version);
        return this;
    }

    /** Adds a frame; returns its index. */
    int frame(Frame frame) {
        frames.add(frame);
        return frames.size() - 1;
    }

    /** Adds a stack of frame indices, leaf first; returns its id. */
    int stack(int... frameIndices) {
        stacks.add(frameIndices);
        return stacks.size() - 1;
    }

    /** Adds a sample {@code offsetNanos} after {@link #T0}. Add samples in time order. */
    TestChunk sample(long offsetNanos, int stackId, String threadId) {
        samples.add(new long[] {T0 + offsetNanos, stackId});
        sampleThreads.add(threadId);
        return this;
    }

    TestChunk thread(String threadId, String name, Integer priority) {
        threadMetadata.put(threadId, new ThreadMetadata(name, priority));
        return this;
    }

    TestChunk image(DebugImage image) {
        images.add(image);
        return this;
    }

    TestChunk measurement(String name, Measurement measurement) {
        measurements.put(name, measurement);
        return this;
    }

    ProfileChunk build() {
        int[] offsets = new int[stacks.size() + 1];
        List<Integer> flat = new ArrayList<>();
        for (int i = 0; i < stacks.size(); i++) {
            for (int frame : stacks.get(i)) {
                flat.add(frame);
            }
            offsets[i + 1] = flat.size();
        }
        Map<String, Integer> threadIndices = new LinkedHashMap<>();
        int n = samples.size();
        long[] timestamps = new long[n];
        int[] stackIds = new int[n];
        int[] threads = new int[n];
        for (int s = 0; s < n; s++) {
            timestamps[s] = samples.get(s)[0];
            stackIds[s] = (int) samples.get(s)[1];
            threads[s] = threadIndices.computeIfAbsent(sampleThreads.get(s), t -> threadIndices.size());
        }
        return new ProfileChunk(CHUNK_ID, PROFILER_ID, platform, release, environment, sdk, "2", frames,
                offsets, flat.stream().mapToInt(Integer::intValue).toArray(), timestamps, stackIds, threads,
                threadIndices.keySet().toArray(String[]::new), threadMetadata, images, measurements, sampledTime);
    }
}
