package chunkrelay.translate.view;

/**
 * The indices {@code 0..size-1} of a table sorted by a comparison of the rows they name, as primitive ints: a fleet's
 * hour has hundreds of thousands of sample groups, and sorting them as boxed indices through a chain of comparators
 * (one lambda and key extraction per field) took longer than merging them. A merge sort, so stable, and n log n in
 * the worst case.
 */
final class IndexOrder {
    /** Compares rows {@code a} and {@code b} of the table, as {@link java.util.Comparator#compare}. */
    interface RowComparator {
        int compare(int a, int b);
    }

    /** Runs this short are sorted by insertion before they are merged. */
    private static final int RUN = 16;

    private IndexOrder() {
    }

    static int[] sorted(int size, RowComparator rows) {
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        for (int from = 0; from < size; from += RUN) {
            insertionSort(order, from, Math.min(from + RUN, size), rows);
        }
        int[] buffer = new int[size];
        for (int width = RUN; width < size; width *= 2) {
            for (int from = 0; from < size; from += 2 * width) {
                int middle = Math.min(from + width, size);
                int to = Math.min(from + 2 * width, size);
                merge(order, buffer, from, middle, to, rows);
            }
            int[] swap = order;
            order = buffer;
            buffer = swap;
        }
        return order;
    }

    private static void insertionSort(int[] order, int from, int to, RowComparator rows) {
        for (int i = from + 1; i < to; i++) {
            int row = order[i];
            int at = i;
            while (at > from && rows.compare(order[at - 1], row) > 0) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = row;
        }
    }

    /** Merges the sorted runs {@code [from, middle)} and {@code [middle, to)} of {@code in} into {@code out}. */
    private static void merge(int[] in, int[] out, int from, int middle, int to, RowComparator rows) {
        int left = from;
        int right = middle;
        for (int at = from; at < to; at++) {
            if (left < middle && (right >= to || rows.compare(in[left], in[right]) <= 0)) {
                out[at] = in[left++];
            } else {
                out[at] = in[right++];
            }
        }
    }
}
