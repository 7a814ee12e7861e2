package chunkrelay.chunk.art;

import chunkrelay.chunk.primitive.IntIntMap;
import chunkrelay.chunk.primitive.LongIntMap;

import java.util.Arrays;

/**
 * Turns the enter/exit events of an ART sampling trace into timed stack samples.
 *
 * <p>In sampling mode ART compares each new stack sample with the thread's previous one and writes only exits for
 * the frames that disappeared and enters for the new ones, all with the sample's time; an unchanged stack writes
 * nothing. So, per thread in file order (newer ART only keeps order within a thread):
 * <ol>
 *   <li>replay the records into a stack: enter pushes; exit and unwind pop down to the topmost occurrence of their
 *       method, and are ignored when the method is not on the stack; a time that goes backwards is held at the
 *       previous one, and a 32-bit wrap-around counts forward;</li>
 *   <li>the stack after the last record of one time (a batch) is the sampled stack at that time;</li>
 *   <li>a batch's stack is also the stack at every interval after it while two intervals remain before the next
 *       batch (the Firefox Profiler's rule), and the last batch lasts to the end of the trace (to the last record
 *       of the trace when the buffer overflowed; a thread-CPU axis is not extended), so that sample counts mean
 *       time as on every other platform.</li>
 * </ol>
 * The interval is estimated as the Firefox Profiler does, the mean of the lowest fifth of the per-thread gaps
 * between batches, but over all batches rather than the first 500 records (steadier: ART's real gaps are the
 * interval plus the time to suspend and walk every thread); without gaps, or below 100 µs (a method trace, not
 * sampling), the Android SDK's 101 Hz. Stacks are kept in a prefix tree (one node per enter at most), so distinct stacks cost one
 * node each; samples are bounded by a budget of {@link #MIN_SAMPLES} to {@link #MAX_SAMPLES} growing with the trace
 * size, and the interval is doubled until the filled samples fit it.
 */
public final class ArtSampleReplay {
    /** The Android SDK's default {@code profilingTracesHz} of 101: 9 900 µs. */
    public static final long DEFAULT_INTERVAL_MICROS = 1_000_000 / 101;
    static final long METHOD_TRACING_BELOW_MICROS = 100;
    /** Frames kept per sample, leaf side; deeper stacks lose their outermost frames. */
    public static final int MAX_STACK_DEPTH = 1024;
    static final int MIN_SAMPLES = 1 << 18;
    static final int MAX_SAMPLES = 1 << 21;
    /** Frame references over all distinct sampled stacks; beyond it the chunk is too large. */
    static final int MAX_STACK_FRAMES = 1 << 22;
    private static final int THREAD_IDS = 1 << 16;

    private final ArtTrace trace;
    private final int sampleBudget;

    // prefix tree of stacks; node 0 is the empty stack
    private int[] nodeParent = new int[256];
    private int[] nodeFrame = new int[256];
    private int[] nodeDepth = new int[256];
    private int nodeCount = 1;
    private final LongIntMap childOf;

    private final IntIntMap frameOfMethod = new IntIntMap(256);
    private int[] frameMethodIds = new int[256];
    private int frameCount;
    /** Per frame, how often it is on the stack of the thread being replayed. */
    private int[] onStack = new int[256];

    private long[] batchTime;
    private int[] batchNode;
    private int batchCount;
    private int clampedTimes;
    private int ignoredExits;

    private ArtSampleReplay(ArtTrace trace, int traceBytes) {
        this.trace = trace;
        this.sampleBudget = Math.max(MIN_SAMPLES, Math.min(MAX_SAMPLES, traceBytes));
        this.childOf = new LongIntMap(Math.min(trace.recordCount(), 1 << 16));
        nodeParent[0] = -1;
        nodeFrame[0] = -1;
    }

    /** @param traceBytes the size of the decoded trace, which the sample budget grows with */
    public static ArtSamples replay(ArtTrace trace, int traceBytes) throws ArtTraceException {
        return new ArtSampleReplay(trace, traceBytes).samples();
    }

    private ArtSamples samples() throws ArtTraceException {
        int records = trace.recordCount();
        // group the records by thread, in order of first appearance, keeping file order within a thread
        int[] threadIndexOfId = new int[THREAD_IDS];
        Arrays.fill(threadIndexOfId, -1);
        int[] threadIds = new int[16];
        int[] threadSizes = new int[16];
        int threads = 0;
        for (int r = 0; r < records; r++) {
            int id = trace.threadId(r);
            int t = threadIndexOfId[id];
            if (t < 0) {
                if (threads == threadIds.length) {
                    threadIds = Arrays.copyOf(threadIds, threads * 2);
                    threadSizes = Arrays.copyOf(threadSizes, threads * 2);
                }
                t = threadIndexOfId[id] = threads;
                threadIds[threads++] = id;
            }
            threadSizes[t]++;
        }
        int[] threadStart = new int[threads + 1];
        for (int t = 0; t < threads; t++) {
            threadStart[t + 1] = threadStart[t] + threadSizes[t];
        }
        int[] order = new int[records];
        int[] filled = Arrays.copyOf(threadStart, threads);
        for (int r = 0; r < records; r++) {
            order[filled[threadIndexOfId[trace.threadId(r)]]++] = r;
        }

        batchTime = new long[Math.min(records, 1024)];
        batchNode = new int[batchTime.length];
        int[] threadBatchStart = new int[threads + 1];
        for (int t = 0; t < threads; t++) {
            replayThread(order, threadStart[t], threadStart[t + 1]);
            threadBatchStart[t + 1] = batchCount;
        }

        long interval = estimateInterval(threads, threadBatchStart);
        long[] threadEnd = threadEnds(threads, threadBatchStart);
        // the batches themselves are always kept; only the filling is coarsened to fit the budget
        long batchesOnly = sampleCount(threads, threadBatchStart, threadEnd, Long.MAX_VALUE);
        while (sampleCount(threads, threadBatchStart, threadEnd, interval) > Math.max(sampleBudget, batchesOnly)) {
            interval *= 2;
        }
        return emit(threads, threadIds, threadBatchStart, threadEnd, interval);
    }

    private void replayThread(int[] order, int from, int to) {
        int node = 0;
        long time = 0;
        long previousRaw = 0;
        boolean open = false;
        for (int k = from; k < to; k++) {
            int r = order[k];
            long raw = trace.timeMicros(r);
            long at;
            if (k == from) {
                at = raw;
            } else {
                long delta = (raw - previousRaw) & 0xFFFF_FFFFL;
                if (delta < 0x8000_0000L) {
                    at = time + delta;
                } else {
                    at = time;
                    clampedTimes++;
                }
            }
            previousRaw = raw;
            if (open && at != time) {
                addBatch(time, node);
                open = false;
            }
            open = true;
            time = at;
            int method = trace.methodId(r);
            if (trace.action(r) == 0) {
                node = child(node, frameOf(method));
            } else {
                int frame = frameOfMethod.get(method);
                if (frame >= 0 && onStack[frame] > 0) {
                    int popped;
                    do {
                        popped = nodeFrame[node];
                        onStack[popped]--;
                        node = nodeParent[node];
                    } while (popped != frame);
                } else {
                    ignoredExits++;
                }
            }
        }
        if (open) {
            addBatch(time, node);
        }
        for (; node != 0; node = nodeParent[node]) {
            onStack[nodeFrame[node]]--;
        }
    }

    private int frameOf(int method) {
        int frame = frameOfMethod.get(method);
        if (frame < 0) {
            frame = frameCount++;
            if (frame == frameMethodIds.length) {
                frameMethodIds = Arrays.copyOf(frameMethodIds, frame * 2);
                onStack = Arrays.copyOf(onStack, frame * 2);
            }
            frameMethodIds[frame] = method;
            frameOfMethod.put(method, frame);
        }
        return frame;
    }

    private int child(int parent, int frame) {
        onStack[frame]++;
        long key = (long) parent << 32 | frame;
        int node = childOf.get(key);
        if (node < 0) {
            node = nodeCount++;
            if (node == nodeParent.length) {
                nodeParent = Arrays.copyOf(nodeParent, node * 2);
                nodeFrame = Arrays.copyOf(nodeFrame, node * 2);
                nodeDepth = Arrays.copyOf(nodeDepth, node * 2);
            }
            nodeParent[node] = parent;
            nodeFrame[node] = frame;
            nodeDepth[node] = nodeDepth[parent] + 1;
            childOf.put(key, node);
        }
        return node;
    }

    private void addBatch(long time, int node) {
        if (batchCount == batchTime.length) {
            int grown = Math.max(16, batchCount * 2);
            batchTime = Arrays.copyOf(batchTime, grown);
            batchNode = Arrays.copyOf(batchNode, grown);
        }
        batchTime[batchCount] = time;
        batchNode[batchCount] = node;
        batchCount++;
    }

    private long estimateInterval(int threads, int[] threadBatchStart) {
        long[] gaps = new long[Math.max(0, batchCount - threads)];
        int n = 0;
        for (int t = 0; t < threads; t++) {
            for (int b = threadBatchStart[t] + 1; b < threadBatchStart[t + 1]; b++) {
                gaps[n++] = batchTime[b] - batchTime[b - 1];
            }
        }
        if (n == 0) {
            return DEFAULT_INTERVAL_MICROS;
        }
        Arrays.sort(gaps, 0, n);
        int lowest = Math.max(1, n / 5);
        long sum = 0;
        for (int i = 0; i < lowest; i++) {
            sum += gaps[i];
        }
        long mean = Math.round((double) sum / lowest);
        return mean < METHOD_TRACING_BELOW_MICROS ? DEFAULT_INTERVAL_MICROS : mean;
    }

    /** Where each thread's last batch ends. */
    private long[] threadEnds(int threads, int[] threadBatchStart) {
        long[] ends = new long[threads];
        long lastRecord = 0;
        for (int b = 0; b < batchCount; b++) {
            lastRecord = Math.max(lastRecord, batchTime[b]);
        }
        for (int t = 0; t < threads; t++) {
            long ownLast = batchTime[threadBatchStart[t + 1] - 1];
            if (trace.clock() == ArtClock.THREAD_CPU) {
                ends[t] = ownLast;
            } else if (trace.dataFileOverflow()) {
                ends[t] = lastRecord;
            } else {
                ends[t] = trace.elapsedMicros();
            }
        }
        return ends;
    }

    private long sampleCount(int threads, int[] threadBatchStart, long[] threadEnd, long interval) {
        long count = 0;
        for (int t = 0; t < threads; t++) {
            for (int b = threadBatchStart[t]; b < threadBatchStart[t + 1]; b++) {
                if (batchNode[b] != 0) {
                    long next = b + 1 < threadBatchStart[t + 1] ? batchTime[b + 1] : threadEnd[t];
                    count += 1 + fills(batchTime[b], next, interval);
                }
            }
        }
        return count;
    }

    /** Samples added after one at {@code time} while two intervals remain before {@code next}. */
    private static long fills(long time, long next, long interval) {
        return next <= time ? 0 : Math.max(0, (next - time) / interval - 1);
    }

    private ArtSamples emit(int threads, int[] threadIds, int[] threadBatchStart, long[] threadEnd, long interval)
            throws ArtTraceException {
        int count = (int) sampleCount(threads, threadBatchStart, threadEnd, interval);
        long[] micros = new long[count];
        int[] stacks = new int[count];
        int[] sampleThreads = new int[count];
        int[] stackOfNode = new int[nodeCount];
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
            for (int b = threadBatchStart[t]; b < threadBatchStart[t + 1]; b++) {
                int node = batchNode[b];
                if (node == 0) {
                    continue;
                }
                int stack = stackOfNode[node];
                if (stack < 0) {
                    int depth = Math.min(nodeDepth[node], MAX_STACK_DEPTH);
                    if ((long) frameRefs + depth > MAX_STACK_FRAMES) {
                        throw ArtTraceException.tooLarge("the sampled stacks hold more than " + MAX_STACK_FRAMES
                                + " frames");
                    }
                    if (stackCount + 1 == stackOffsets.length) {
                        stackOffsets = Arrays.copyOf(stackOffsets, stackOffsets.length * 2);
                    }
                    if (frameRefs + depth > stackFrames.length) {
                        stackFrames = Arrays.copyOf(stackFrames, Math.max(stackFrames.length * 2, frameRefs + depth));
                    }
                    int n = node;
                    for (int d = 0; d < depth; d++, n = nodeParent[n]) {
                        stackFrames[frameRefs++] = nodeFrame[n];
                    }
                    stack = stackOfNode[node] = stackCount++;
                    stackOffsets[stackCount] = frameRefs;
                }
                long next = b + 1 < threadBatchStart[t + 1] ? batchTime[b + 1] : threadEnd[t];
                long fills = fills(batchTime[b], next, interval);
                for (long f = 0; f <= fills; f++) {
                    micros[s] = batchTime[b] + f * interval;
                    stacks[s] = stack;
                    sampleThreads[s] = keptThreads;
                    s++;
                }
            }
            if (s > firstSample) {
                keptThreadIds[keptThreads++] = threadIds[t];
            }
        }
        int[] order = timeOrder(micros, sampleThreads, keptThreads);
        return new ArtSamples(Arrays.copyOf(frameMethodIds, frameCount), Arrays.copyOf(stackOffsets, stackCount + 1),
                Arrays.copyOf(stackFrames, frameRefs), permuted(micros, order), permuted(stacks, order),
                permuted(sampleThreads, order), Arrays.copyOf(keptThreadIds, keptThreads), interval, clampedTimes,
                ignoredExits);
    }

    /**
     * The samples in time order (ties by thread): each thread's samples are already a sorted run, so the runs are
     * merged through a heap of threads, in O(samples log threads) rather than a full sort.
     */
    private static int[] timeOrder(long[] micros, int[] sampleThreads, int threads) {
        int n = micros.length;
        int[] next = new int[threads];
        int[] end = new int[threads];
        Arrays.fill(next, -1);
        for (int s = 0; s < n; s++) {
            int t = sampleThreads[s];
            if (next[t] < 0) {
                next[t] = s;
            }
            end[t] = s + 1;
        }
        int[] heap = new int[threads];
        int size = 0;
        for (int t = 0; t < threads; t++) {
            if (next[t] >= 0) {
                heap[size] = t;
                siftUp(heap, size++, micros, next);
            }
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            int t = heap[0];
            order[i] = next[t]++;
            if (next[t] == end[t]) {
                heap[0] = heap[--size];
            }
            siftDown(heap, size, micros, next);
        }
        return order;
    }

    private static boolean before(int a, int b, long[] micros, int[] next) {
        long ta = micros[next[a]];
        long tb = micros[next[b]];
        return ta < tb || (ta == tb && a < b);
    }

    private static void siftUp(int[] heap, int at, long[] micros, int[] next) {
        while (at > 0 && before(heap[at], heap[(at - 1) / 2], micros, next)) {
            int parent = (at - 1) / 2;
            int swap = heap[at];
            heap[at] = heap[parent];
            heap[parent] = swap;
            at = parent;
        }
    }

    private static void siftDown(int[] heap, int size, long[] micros, int[] next) {
        int at = 0;
        while (true) {
            int smallest = at;
            for (int child = 2 * at + 1; child <= 2 * at + 2 && child < size; child++) {
                if (before(heap[child], heap[smallest], micros, next)) {
                    smallest = child;
                }
            }
            if (smallest == at) {
                return;
            }
            int swap = heap[at];
            heap[at] = heap[smallest];
            heap[smallest] = swap;
            at = smallest;
        }
    }

    private static long[] permuted(long[] values, int[] order) {
        long[] out = new long[values.length];
        for (int i = 0; i < order.length; i++) {
            out[i] = values[order[i]];
        }
        return out;
    }

    private static int[] permuted(int[] values, int[] order) {
        int[] out = new int[values.length];
        for (int i = 0; i < order.length; i++) {
            out[i] = values[order[i]];
        }
        return out;
    }
}
