package chunkrelay.translate;

import chunkrelay.chunk.primitive.LongIndex;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * Samples grouped by a {@code long} key in the order the keys are first seen, each group with its timestamps in the
 * order the samples were added: one OTLP {@code Sample} per (stack, thread, link), as the translator and the linker
 * build them, on primitive arrays, from which the timestamps go into each {@code Sample} unboxed.
 */
final class SampleGroups {
    private final LongIndex groups;
    private final int[] groupOf;
    private int[] sizes = new int[64];
    private int added;
    /** Group g's timestamps are {@code grouped[start[g] .. start[g + 1])}, once {@link #fill} ran. */
    private int[] start;
    private long[] grouped;

    SampleGroups(int samples) {
        groups = new LongIndex(Math.min(samples, 1 << 12));
        groupOf = new int[samples];
    }

    /** Adds the next sample to the group of {@code key}. */
    void add(long key) {
        int group = groups.indexOf(key);
        if (group == sizes.length) {
            sizes = Arrays.copyOf(sizes, group * 2);
        }
        sizes[group]++;
        groupOf[added++] = group;
    }

    int size() {
        return groups.size();
    }

    long key(int group) {
        return groups.key(group);
    }

    /** Gives each group its samples' timestamps, once all samples are added: {@code timestampOf} the i-th added. */
    void fill(IntToLongFunction timestampOf) {
        int count = groups.size();
        start = new int[count + 1];
        for (int g = 0; g < count; g++) {
            start[g + 1] = start[g] + sizes[g];
        }
        grouped = new long[added];
        int[] filled = Arrays.copyOf(start, count);
        for (int i = 0; i < added; i++) {
            grouped[filled[groupOf[i]]++] = timestampOf.applyAsLong(i);
        }
    }

    /**
     * Adds a group's timestamps to its {@code Sample}, in the order their samples were added ({@link #fill} first),
     * one primitive at a time: an {@code addAll} of a list would box every timestamp.
     */
    Sample.Builder addTimestamps(int group, Sample.Builder sample) {
        for (int i = start[group]; i < start[group + 1]; i++) {
            sample.addTimestampsUnixNano(grouped[i]);
        }
        return sample;
    }
}
