package chunkrelay.chunk.art;

/**
 * Timed stack samples replayed from an ART trace, in the shape of a Sample Format V2 profile. The arrays are handed
 * over to the caller, not copied.
 *
 * @param frameMethodIds  frame index to the method index it stands for (which may be missing from the table)
 * @param stackOffsets    {@code stackCount + 1} offsets into {@code stackFrames}; each stack is leaf first
 * @param sampleMicros    sample times on the trace's axis, µs since the trace start, in time order (ties by thread)
 * @param sampleThreads   index into {@code threadIds}
 * @param threadIds       the trace's thread ids of the threads that have samples
 * @param intervalMicros  the sampling interval the gaps were filled at
 * @param clampedTimes    records whose time went backwards on their thread and was held at the previous time
 * @param ignoredExits    exit or unwind records for a method that was not on the thread's stack
 */
public record ArtSamples(int[] frameMethodIds, int[] stackOffsets, int[] stackFrames, long[] sampleMicros,
                         int[] sampleStacks, int[] sampleThreads, int[] threadIds, long intervalMicros,
                         int clampedTimes, int ignoredExits) {

    public int sampleCount() {
        return sampleMicros.length;
    }

    public int stackCount() {
        return stackOffsets.length - 1;
    }
}
