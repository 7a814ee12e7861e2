package chunkrelay.translate;

import java.util.Arrays;
import java.util.List;

/**
 * Samples grouped by a {@code long} key in the order the keys are first seen, each group with its timestamps in the
 * order they were added: one OTLP {@code Sample} per (stack, thread, link), as the translator and the linker build
 * them, on primitive arrays (adding timestamps one by one to protobuf builders costs more than the rest).
 */
final class SampleGroups {
    private final LongIndex groups;
    private final int[] groupOf;
    private final long[] times;
    private int[] sizes = new int[64];
    private int added;
    /** Group g's timestamps are {@code grouped[start[g] .. start[g + 1])}, filled once all samples are in. */
    private int[] start;
    private long[] grouped;

    SampleGroups(int samples) {
        groups = new LongIndex(Math.min(samples, 1 << 12));
        groupOf = new int[samples];
        times = new long[samples];
    }

    /** Adds the next sample, taken at {@code timestamp}, to the group of {@code key}. */
    void add(long key, long timestamp) {
        int group = groups.indexOf(key);
        if (group == sizes.length) {
            sizes = Arrays.copyOf(sizes, group * 2);
        }
        sizes[group]++;
        groupOf[added] = group;
        times[added++] = timestamp;
    }

    int size() {
        return groups.size();
    }

    long key(int group) {
        return groups.key(group);
    }

    /** A group's timestamps in the order they were added; no sample may be added after the first call. */
    List<Long> timestamps(int group) {
        if (grouped == null) {
            int count = groups.size();
            start = new int[count + 1];
            for (int g = 0; g < count; g++) {
                start[g + 1] = start[g] + sizes[g];
            }
            grouped = new long[added];
            int[] filled = Arrays.copyOf(start, count);
            for (int i = 0; i < added; i++) {
                grouped[filled[groupOf[i]]++] = times[i];
            }
        }
        return new LongRange(grouped, start[group], start[group + 1]);
    }
}
