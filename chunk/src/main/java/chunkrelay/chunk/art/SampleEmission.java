package chunkrelay.chunk.art;

import java.util.Arrays;

/**
 * The samples a replay's batches stand for at an interval: each batch's stack becomes a leaf-first stack of frames
 * (once per distinct stack, cut to {@link ArtLimits#MAX_STACK_DEPTH}), each batch and its fills samples of that
 * stack, and the samples of all threads go in time order.
 */
final class SampleEmission {
    private SampleEmission() {
    }

    /** @param clampedTimes records whose time went backwards on their thread, as the replay counted them */
    static ArtSamples emit(StackTree tree, Batches batches, long interval, int clampedTimes)
            throws ArtTraceException {
        int threads = batches.threads();
        int count = (int) batches.sampleCount(interval);
        long[] micros = new long[count];
        int[] stacks = new int[count];
        int[] sampleThreads = new int[count];
        int[] stackOfNode = new int[tree.nodeCount()];
        Arrays.fill(stackOfNode, -1);
        int[] stackOffsets = new int[64];
        int[] stackFrames = new int[256];
        int stackCount = 0;
        int frameRefs = 0;
        int[] keptThreadIds = new int[threads];
        int keptThreads = 0;
        int s = 0;
        for (int t = 0; t < threads; t++) {
            int firstSample = s;
            for (int b = batches.first(t); b < batches.end(t); b++) {
                int node = batches.node(b);
                if (node == 0) {
                    continue;
                }
                int stack = stackOfNode[node];
                if (stack < 0) {
                    int depth = Math.min(tree.depth(node), ArtLimits.MAX_STACK_DEPTH);
                    if ((long) frameRefs + depth > ArtLimits.MAX_STACK_FRAMES) {
                        throw ArtTraceException.tooLarge("the sampled stacks hold more than "
                                + ArtLimits.MAX_STACK_FRAMES + " frames");
                    }
                    if (stackCount + 1 == stackOffsets.length) {
                        stackOffsets = Arrays.copyOf(stackOffsets, stackOffsets.length * 2);
                    }
                    if (frameRefs + depth > stackFrames.length) {
                        stackFrames = Arrays.copyOf(stackFrames, Math.max(stackFrames.length * 2, frameRefs + depth));
                    }
                    int n = node;
                    for (int d = 0; d < depth; d++, n = tree.parent(n)) {
                        stackFrames[frameRefs++] = tree.frame(n);
                    }
                    stack = stackOfNode[node] = stackCount++;
                    stackOffsets[stackCount] = frameRefs;
                }
                long fills = batches.fills(t, b, interval);
                for (long f = 0; f <= fills; f++) {
                    micros[s] = batches.time(b) + f * interval;
                    stacks[s] = stack;
                    sampleThreads[s] = keptThreads;
                    s++;
                }
            }
            if (s > firstSample) {
                keptThreadIds[keptThreads++] = batches.threadId(t);
            }
        }
        int[] order = TimeOrder.of(micros, sampleThreads, keptThreads);
        return new ArtSamples(tree.frameMethodIds(), Arrays.copyOf(stackOffsets, stackCount + 1),
                Arrays.copyOf(stackFrames, frameRefs), TimeOrder.permuted(micros, order),
                TimeOrder.permuted(stacks, order), TimeOrder.permuted(sampleThreads, order),
                Arrays.copyOf(keptThreadIds, keptThreads), interval, clampedTimes, tree.ignoredExits());
    }
}
