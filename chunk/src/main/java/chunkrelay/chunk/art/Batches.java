package chunkrelay.chunk.art;

import java.util.Arrays;

/**
 * The sampled stacks of a trace: per thread, in time order, the stack after the last record of one time (a batch);
 * and how many samples they stand for at an interval, each batch filled while two intervals remain before the next
 * one or, for the last, before the thread's end.
 */
final class Batches {
    private final int[] threadIds;
    /** Thread t's batches are {@code [threadStart[t], threadStart[t + 1])}. */
    private final int[] threadStart;
    private int threadsEnded;
    private long[] time;
    private int[] node;
    private int count;
    /** Where each thread's last batch ends, once {@link #endTrace} ran. */
    private long[] threadEnd;

    /** @param threadIds the trace's thread ids in the order their batches are added */
    Batches(int[] threadIds, int records) {
        this.threadIds = threadIds;
        this.threadStart = new int[threadIds.length + 1];
        this.time = new long[Math.min(records, 1024)];
        this.node = new int[time.length];
    }

    /** Adds the current thread's stack {@code stackNode} at {@code at}. */
    void add(long at, int stackNode) {
        if (count == time.length) {
            int grown = Math.max(16, count * 2);
            time = Arrays.copyOf(time, grown);
            node = Arrays.copyOf(node, grown);
        }
        time[count] = at;
        node[count] = stackNode;
        count++;
    }

    /** Ends the current thread: the batches added next are the next thread's. */
    void endThread() {
        threadStart[++threadsEnded] = count;
    }

    /**
     * Once every thread is replayed, where each thread's last batch lasts to: the end of the trace (its last record
     * when the buffer overflowed); on a thread-CPU axis, which says nothing of time off the CPU, the batch itself.
     */
    void endTrace(ArtTrace trace) {
        threadEnd = new long[threadIds.length];
        long lastRecord = 0;
        for (int b = 0; b < count; b++) {
            lastRecord = Math.max(lastRecord, time[b]);
        }
        for (int t = 0; t < threadIds.length; t++) {
            long ownLast = time[threadStart[t + 1] - 1];
            if (trace.clock() == ArtClock.THREAD_CPU) {
                threadEnd[t] = ownLast;
            } else if (trace.dataFileOverflow()) {
                threadEnd[t] = lastRecord;
            } else {
                threadEnd[t] = trace.elapsedMicros();
            }
        }
    }

    /** The mean of the lowest fifth of the gaps between a thread's batches; the SDK's default without gaps. */
    long estimateInterval() {
        int threads = threadIds.length;
        long[] gaps = new long[Math.max(0, count - threads)];
        int n = 0;
        for (int t = 0; t < threads; t++) {
            for (int b = threadStart[t] + 1; b < threadStart[t + 1]; b++) {
                gaps[n++] = time[b] - time[b - 1];
            }
        }
        if (n == 0) {
            return ArtLimits.DEFAULT_INTERVAL_MICROS;
        }
        Arrays.sort(gaps, 0, n);
        int lowest = Math.max(1, n / 5);
        long sum = 0;
        for (int i = 0; i < lowest; i++) {
            sum += gaps[i];
        }
        long mean = Math.round((double) sum / lowest);
        return mean < ArtLimits.METHOD_TRACING_BELOW_MICROS ? ArtLimits.DEFAULT_INTERVAL_MICROS : mean;
    }

    /** The samples the batches stand for at {@code interval}: the batches with a stack and their fills. */
    long sampleCount(long interval) {
        long samples = 0;
        for (int t = 0; t < threadIds.length; t++) {
            for (int b = threadStart[t]; b < threadStart[t + 1]; b++) {
                if (node[b] != 0) {
                    samples += 1 + fills(t, b, interval);
                }
            }
        }
        return samples;
    }

    /** Samples added after batch {@code b} of thread {@code t} while two intervals remain before what follows it. */
    long fills(int t, int b, long interval) {
        long next = b + 1 < threadStart[t + 1] ? time[b + 1] : threadEnd[t];
        return next <= time[b] ? 0 : Math.max(0, (next - time[b]) / interval - 1);
    }

    int threads() {
        return threadIds.length;
    }

    int threadId(int t) {
        return threadIds[t];
    }

    /** The first batch of thread {@code t}. */
    int first(int t) {
        return threadStart[t];
    }

    /** One past the last batch of thread {@code t}. */
    int end(int t) {
        return threadStart[t + 1];
    }

    long time(int b) {
        return time[b];
    }

    /** The stack of batch {@code b}; 0 when the thread's stack was empty. */
    int node(int b) {
        return node[b];
    }
}
