package chunkrelay.chunk.perfetto;

import chunkrelay.chunk.DebugImage;
import chunkrelay.chunk.Frame;
import chunkrelay.chunk.ThreadMetadata;

import java.util.List;
import java.util.Map;

/**
 * A converted Perfetto trace: one sample per resolvable {@code PerfSample}, in trace order.
 *
 * @param frames         deduplicated frames
 * @param stackOffsets   {@code stackCount + 1} offsets into {@code stackFrames}; stacks are leaf first
 * @param stackFrames    frame indices of all stacks
 * @param sampleNanos    Unix time of each sample in nanoseconds (its boot-time stamp moved by the clock snapshot)
 * @param sampleStacks   stack id of each sample
 * @param sampleThreads  index into {@code threadIds} of each sample
 * @param threadIds      the sampled threads' tids, as decimal strings
 * @param threadMetadata names of sampled threads: {@code main} for the tid equal to the process id, else the name a
 *                       process tree or track descriptor gave
 * @param debugImages    symbolic images of the native mappings with build ids
 */
public record PerfettoProfile(List<Frame> frames, int[] stackOffsets, int[] stackFrames, long[] sampleNanos,
                              int[] sampleStacks, int[] sampleThreads, String[] threadIds,
                              Map<String, ThreadMetadata> threadMetadata, List<DebugImage> debugImages) {

    public int sampleCount() {
        return sampleNanos.length;
    }
}
