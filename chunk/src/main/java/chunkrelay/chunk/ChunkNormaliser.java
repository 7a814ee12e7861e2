package chunkrelay.chunk;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Relay's normalisation of a parsed Sample Format V2 chunk ({@code ProfileData::normalize}), in its order:
 * <ol>
 *   <li>drop every sample of a thread with fewer than 2 samples whose stack exists and is not empty;</li>
 *   <li>no sample left: {@code profiling_not_enough_samples};</li>
 *   <li>a sample's stack id out of range: {@code profiling_malformed_samples};</li>
 *   <li>a frame index out of range in any stack: {@code profiling_malformed_stacks};</li>
 *   <li>stable sort of samples by timestamp;</li>
 *   <li>last minus first timestamp strictly over 66 s: {@code profiling_duration_is_too_long};</li>
 *   <li>platform {@code cocoa}: mask every {@code instruction_addr} with {@link #COCOA_ADDRESS_MASK};</li>
 *   <li>drop thread metadata of threads without samples.</li>
 * </ol>
 */
final class ChunkNormaliser {
    /** Relay's MAX_PROFILE_CHUNK_DURATION (66 s), compared with {@code >}: exactly 66 s is accepted. */
    static final long MAX_CHUNK_DURATION_NANOS = 66_000_000_000L;
    /** Keeps the 36 address bits; the bits above carry arm64e pointer authentication codes. */
    static final long COCOA_ADDRESS_MASK = 0x0000000FFFFFFFFFL;

    private ChunkNormaliser() {
    }

    /** The normalised chunk and its samples as parsed, with those step 1 dropped. */
    static ChunkOutcome.Accepted normalise(ParsedChunk chunk) throws ChunkRejectedException {
        int stackCount = chunk.stackCount();
        int[] stackOffsets = chunk.stackOffsets();
        int[] threadOf = chunk.sampleThreadIndices();
        int[] stackOf = chunk.sampleStackIds();
        long[] timeOf = chunk.sampleTimestampNanos();
        int parsedSamples = chunk.sampleCount();

        // 1. threads with fewer than 2 samples on an existing, non-empty stack lose all their samples
        int[] usefulSamples = new int[chunk.threadIds().size()];
        for (int i = 0; i < parsedSamples; i++) {
            int stack = stackOf[i];
            if (stack < stackCount && stackOffsets[stack + 1] > stackOffsets[stack]) {
                usefulSamples[threadOf[i]]++;
            }
        }
        int kept = 0;
        int firstMalformedSample = -1;
        for (int i = 0; i < parsedSamples; i++) {
            if (usefulSamples[threadOf[i]] > 1) {
                if (firstMalformedSample < 0 && stackOf[i] >= stackCount) {
                    firstMalformedSample = i;
                }
                kept++;
            }
        }
        // 2.
        if (kept == 0) {
            throw new ChunkRejectedException(ChunkRejectionReason.NOT_ENOUGH_SAMPLES, parsedSamples == 0
                    ? "profile.samples is empty"
                    : "no thread has 2 or more samples with a non-empty stack (" + parsedSamples
                    + " samples before pruning, all dropped)");
        }
        // 3.
        if (firstMalformedSample >= 0) {
            int stack = stackOf[firstMalformedSample];
            throw new ChunkRejectedException(ChunkRejectionReason.MALFORMED_SAMPLES,
                    "profile.samples[" + firstMalformedSample + "].stack_id "
                            + (stack == JsonValues.INDEX_OUT_OF_RANGE ? "(too large)" : String.valueOf(stack))
                            + " does not exist: there are " + stackCount + " stacks");
        }
        // 4. every stack, referenced or not
        int frameCount = chunk.frames().size();
        int[] stackFrames = chunk.stackFrames();
        for (int stack = 0; stack < stackCount; stack++) {
            for (int at = stackOffsets[stack]; at < stackOffsets[stack + 1]; at++) {
                if (stackFrames[at] >= frameCount) {
                    throw new ChunkRejectedException(ChunkRejectionReason.MALFORMED_STACKS,
                            "profile.stacks[" + stack + "][" + (at - stackOffsets[stack]) + "] references frame "
                                    + (stackFrames[at] == JsonValues.INDEX_OUT_OF_RANGE ? "(too large)" : stackFrames[at])
                                    + " which does not exist: there are " + frameCount + " frames");
                }
            }
        }

        // keep the surviving samples, renumbering threads so only threads with samples remain
        int[] newThreadIndex = new int[usefulSamples.length];
        List<String> keptThreads = new ArrayList<>();
        for (int t = 0; t < usefulSamples.length; t++) {
            if (usefulSamples[t] > 1) {
                newThreadIndex[t] = keptThreads.size();
                keptThreads.add(chunk.threadIds().get(t));
            } else {
                newThreadIndex[t] = -1;
            }
        }
        long[] times = timeOf;
        int[] stacks = stackOf;
        int[] threads = threadOf;
        // the parsed arrays are this chunk's own: dropped samples are squeezed out in place (sample i moves to
        // n <= i, read before it is overwritten) and the chunk keeps the first `kept`, with no copy
        if (kept < parsedSamples || keptThreads.size() < usefulSamples.length) {
            int n = 0;
            for (int i = 0; i < parsedSamples; i++) {
                int thread = newThreadIndex[threadOf[i]];
                if (thread >= 0) {
                    times[n] = timeOf[i];
                    stacks[n] = stackOf[i];
                    threads[n] = thread;
                    n++;
                }
            }
        }

        // 5.
        SampleOrder.stableSortByTime(times, stacks, threads, kept);

        // 6.
        long duration;
        try {
            duration = Math.subtractExact(times[kept - 1], times[0]);
        } catch (ArithmeticException overflow) {
            duration = Long.MAX_VALUE;
        }
        if (duration > MAX_CHUNK_DURATION_NANOS) {
            throw new ChunkRejectedException(ChunkRejectionReason.DURATION_IS_TOO_LONG,
                    "samples span " + duration / 1_000_000 + " ms, more than the 66000 ms a chunk may cover");
        }

        // 7.
        List<Frame> frames = "cocoa".equals(chunk.fields().platform()) ? maskAddresses(chunk.frames()) : chunk.frames();

        // 8.
        Map<String, ThreadMetadata> threadMetadata = new TreeMap<>();
        for (String thread : keptThreads) {
            ThreadMetadata metadata = chunk.threadMetadata().get(thread);
            if (metadata != null) {
                threadMetadata.put(thread, metadata);
            }
        }

        ChunkFields fields = chunk.fields();
        ProfileChunk normalised = new ProfileChunk(fields.chunkId(), fields.profilerId(), fields.platform(),
                fields.release(), fields.environment(), fields.clientSdk(), fields.version(), frames, stackOffsets,
                stackFrames, times, stacks, threads, kept, keptThreads.toArray(String[]::new), threadMetadata,
                fields.debugImages(), fields.measurements(), SampledTime.WALL_CLOCK);
        return new ChunkOutcome.Accepted(normalised, SampleCounts.dropped(parsedSamples,
                SampleDropRule.THREAD_WITH_FEWER_THAN_TWO_SAMPLES, parsedSamples - kept));
    }

    private static List<Frame> maskAddresses(List<Frame> frames) {
        List<Frame> masked = new ArrayList<>(frames.size());
        for (Frame f : frames) {
            masked.add(f.instructionAddr() == null ? f : new Frame(f.function(), f.module(), f.filename(),
                    f.absPath(), f.lineno(), f.colno(), f.inApp(), f.instructionAddr() & COCOA_ADDRESS_MASK,
                    f.platform()));
        }
        return masked;
    }
}
