package chunkrelay.chunk.art;

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
 * sampling), the Android SDK's 101 Hz. Stacks are kept in a prefix tree (one node per enter at most), so distinct
 * stacks cost one node each; samples are bounded by a budget of {@link ArtLimits#MIN_SAMPLES} to
 * {@link ArtLimits#MAX_SAMPLES} growing with the trace size, and the interval is doubled until the filled samples fit
 * it.
 *
 * <p>This class is the replay loop; the call stacks are a {@link StackTree}, the batches and the filling rule
 * {@link Batches}, and the samples they stand for come out of {@link SampleEmission}.
 */
public final class ArtSampleReplay {
    private static final int THREAD_IDS = 1 << 16;

    private final ArtTrace trace;
    private final int sampleBudget;
    private final StackTree stacks;
    private int clampedTimes;

    private ArtSampleReplay(ArtTrace trace, int traceBytes) {
        this.trace = trace;
        this.sampleBudget = Math.max(ArtLimits.MIN_SAMPLES, Math.min(ArtLimits.MAX_SAMPLES, traceBytes));
        this.stacks = new StackTree(Math.min(trace.recordCount(), 1 << 16));
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

        Batches batches = new Batches(Arrays.copyOf(threadIds, threads), records);
        for (int t = 0; t < threads; t++) {
            replayThread(order, threadStart[t], threadStart[t + 1], batches);
            batches.endThread();
        }
        batches.endTrace(trace);

        long interval = batches.estimateInterval();
        // the batches themselves are always kept; only the filling is coarsened to fit the budget
        long batchesOnly = batches.sampleCount(Long.MAX_VALUE);
        while (batches.sampleCount(interval) > Math.max(sampleBudget, batchesOnly)) {
            interval *= 2;
        }
        return SampleEmission.emit(stacks, batches, interval, clampedTimes);
    }

    private void replayThread(int[] order, int from, int to, Batches batches) {
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
                batches.add(time, node);
                open = false;
            }
            open = true;
            time = at;
            int method = trace.methodId(r);
            node = trace.action(r) == 0 ? stacks.enter(node, method) : stacks.exit(node, method);
        }
        if (open) {
            batches.add(time, node);
        }
        stacks.leave(node);
    }
}
