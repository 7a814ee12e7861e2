package chunkrelay.chunk.art;

import java.util.Arrays;

/**
 * The samples in time order (ties by thread): each thread's samples are already a sorted run, so the runs are merged
 * through a heap of threads, in O(samples log threads) rather than a full sort.
 */
final class TimeOrder {
    private TimeOrder() {
    }

    /** The indices of the samples in time order, where each thread's samples are one sorted run. */
    static int[] of(long[] micros, int[] sampleThreads, int threads) {
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

    static long[] permuted(long[] values, int[] order) {
        long[] out = new long[values.length];
        for (int i = 0; i < order.length; i++) {
            out[i] = values[order[i]];
        }
        return out;
    }

    static int[] permuted(int[] values, int[] order) {
        int[] out = new int[values.length];
        for (int i = 0; i < order.length; i++) {
            out[i] = values[order[i]];
        }
        return out;
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
}
