package chunkrelay.chunk;

import java.util.List;
import java.util.Map;

/**
 * A Sample Format V2 chunk after Relay's validation and normalisation: samples sorted by time,
 * every stack and frame index in range, threads without samples dropped.
 *
 * <p>Samples are parallel primitive arrays; stacks are one flat array of frame indices with
 * offsets, leaf first. Instances are immutable: the constructor takes ownership of the arrays
 * and accessors never hand them out.
 */
public final class ProfileChunk {
    private final SentryUuid chunkId;
    private final SentryUuid profilerId;
    private final String platform;
    private final String release;
    private final String environment;
    private final ClientSdk clientSdk;
    private final String version;
    private final List<Frame> frames;
    private final int[] stackOffsets;
    private final int[] stackFrames;
    private final long[] sampleTimestampNanos;
    private final int[] sampleStackIds;
    private final int[] sampleThreadIndices;
    private final int sampleCount;
    private final long firstSampleNanos;
    private final long lastSampleNanos;
    private final String[] threadIds;
    private final Map<String, ThreadMetadata> threadMetadata;
    private final List<DebugImage> debugImages;
    private final Map<String, Measurement> measurements;
    private final SampledTime sampledTime;

    /**
     * @param stackOffsets {@code stackCount + 1} offsets into {@code stackFrames}; stack {@code i}
     *                     is {@code stackFrames[stackOffsets[i] .. stackOffsets[i + 1])}, leaf first
     * @param sampleTimestampNanos sample times in Unix nanoseconds, exact to the microsecond sent
     * @param sampleThreadIndices index into {@code threadIds} per sample
     * @param sampledTime what one tick of the chunk's profiler stands for (its format says)
     */
    public ProfileChunk(SentryUuid chunkId, SentryUuid profilerId, String platform, String release,
                        String environment, ClientSdk clientSdk, String version, List<Frame> frames,
                        int[] stackOffsets, int[] stackFrames, long[] sampleTimestampNanos,
                        int[] sampleStackIds, int[] sampleThreadIndices, String[] threadIds,
                        Map<String, ThreadMetadata> threadMetadata, List<DebugImage> debugImages,
                        Map<String, Measurement> measurements, SampledTime sampledTime) {
        this(chunkId, profilerId, platform, release, environment, clientSdk, version, frames, stackOffsets,
                stackFrames, sampleTimestampNanos, sampleStackIds, sampleThreadIndices, sampleTimestampNanos.length,
                threadIds, threadMetadata, debugImages, measurements, sampledTime);
        if (sampleTimestampNanos.length != sampleStackIds.length
                || sampleStackIds.length != sampleThreadIndices.length) {
            throw new IllegalArgumentException("sample arrays differ in length");
        }
    }

    /** As above, with only the first {@code sampleCount} entries of the sample arrays in use. */
    ProfileChunk(SentryUuid chunkId, SentryUuid profilerId, String platform, String release, String environment,
                 ClientSdk clientSdk, String version, List<Frame> frames, int[] stackOffsets, int[] stackFrames,
                 long[] sampleTimestampNanos, int[] sampleStackIds, int[] sampleThreadIndices, int sampleCount,
                 String[] threadIds, Map<String, ThreadMetadata> threadMetadata, List<DebugImage> debugImages,
                 Map<String, Measurement> measurements, SampledTime sampledTime) {
        if (sampleCount > sampleTimestampNanos.length || sampleCount > sampleStackIds.length
                || sampleCount > sampleThreadIndices.length) {
            throw new IllegalArgumentException("fewer sample entries than " + sampleCount);
        }
        this.sampleCount = sampleCount;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int s = 0; s < sampleCount; s++) {
            first = Math.min(first, sampleTimestampNanos[s]);
            last = Math.max(last, sampleTimestampNanos[s]);
        }
        this.firstSampleNanos = first;
        this.lastSampleNanos = last;
        this.chunkId = chunkId;
        this.profilerId = profilerId;
        this.platform = platform;
        this.release = release;
        this.environment = environment;
        this.clientSdk = clientSdk;
        this.version = version;
        this.frames = List.copyOf(frames);
        this.stackOffsets = stackOffsets;
        this.stackFrames = stackFrames;
        this.sampleTimestampNanos = sampleTimestampNanos;
        this.sampleStackIds = sampleStackIds;
        this.sampleThreadIndices = sampleThreadIndices;
        this.threadIds = threadIds;
        this.threadMetadata = Map.copyOf(threadMetadata);
        this.debugImages = List.copyOf(debugImages);
        this.measurements = Map.copyOf(measurements);
        this.sampledTime = java.util.Objects.requireNonNull(sampledTime, "sampledTime");
    }

    public SentryUuid chunkId() {
        return chunkId;
    }

    public SentryUuid profilerId() {
        return profilerId;
    }

    public String platform() {
        return platform;
    }

    /** May be null. */
    public String release() {
        return release;
    }

    /** May be null. */
    public String environment() {
        return environment;
    }

    public ClientSdk clientSdk() {
        return clientSdk;
    }

    public String version() {
        return version;
    }

    public List<Frame> frames() {
        return frames;
    }

    public int stackCount() {
        return stackOffsets.length - 1;
    }

    public int stackDepth(int stackId) {
        return stackOffsets[stackId + 1] - stackOffsets[stackId];
    }

    /** Frame index at {@code depth} of stack {@code stackId}; depth 0 is the leaf. */
    public int stackFrame(int stackId, int depth) {
        return stackFrames[stackOffsets[stackId] + depth];
    }

    public int sampleCount() {
        return sampleCount;
    }

    /** The earliest sample's time; {@code Long.MAX_VALUE} for a chunk without samples. */
    public long firstSampleNanos() {
        return firstSampleNanos;
    }

    /** The latest sample's time; {@code Long.MIN_VALUE} for a chunk without samples. */
    public long lastSampleNanos() {
        return lastSampleNanos;
    }

    public long sampleTimestampNanos(int sample) {
        return sampleTimestampNanos[sample];
    }

    public int sampleStackId(int sample) {
        return sampleStackIds[sample];
    }

    /** Index into {@link #threadId(int)} of the thread the sample was taken on. */
    public int sampleThreadIndex(int sample) {
        return sampleThreadIndices[sample];
    }

    public int threadCount() {
        return threadIds.length;
    }

    public String threadId(int threadIndex) {
        return threadIds[threadIndex];
    }

    public Map<String, ThreadMetadata> threadMetadata() {
        return threadMetadata;
    }

    public List<DebugImage> debugImages() {
        return debugImages;
    }

    public Map<String, Measurement> measurements() {
        return measurements;
    }

    /** What one tick of the chunk's profiler stands for. */
    public SampledTime sampledTime() {
        return sampledTime;
    }
}
