package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Every function of a {@link MergedProfile} with its self samples (it is the leaf) and total samples (it is anywhere
 * on the stack, once per sample however often it recurses), their share of the profile's samples and the time they
 * stand for (each sample's count times the period of the chunk it came from). Functions are the flame graph's boxes
 * (name and file), so the self counts add up to the flame graph's samples and no function is left out. Built in one
 * walk of the merged stacks; holds one row per distinct function.
 */
public final class FunctionTable {
    /** How the rows are ordered: by self or total samples, the largest first. */
    public enum Order { SELF, TOTAL }

    /** One function: samples, shares of the profile's samples, and time in nanoseconds. */
    public record Row(String name, String file, long self, long total, double selfShare, double totalShare,
                      long selfNanos, long totalNanos) {
    }

    /**
     * A page of the rows.
     *
     * @param samples    the profile's samples (what the shares are of; the flame graph's sample count)
     * @param nanos      the time they stand for
     * @param functions  the profile's distinct functions
     * @param matching   the functions the search lets through
     * @param offset     the page's first row among the matching ones
     * @param rows       the page
     */
    public record Page(long samples, long nanos, int functions, int matching, int offset, List<Row> rows) {
    }

    private final long samples;
    private final long nanos;
    private final List<Row> rows;

    private FunctionTable(long samples, long nanos, List<Row> rows) {
        this.samples = samples;
        this.nanos = nanos;
        this.rows = rows;
    }

    public static FunctionTable of(MergedProfile profile) {
        long[] stackSamples = new long[profile.stacks().size()];
        long[] stackNanos = new long[stackSamples.length];
        long samples = 0;
        long nanos = 0;
        for (MergedProfile.SampleGroup group : profile.samples()) {
            stackSamples[group.stack()] += group.count();
            stackNanos[group.stack()] += group.count() * group.periodNanos();
            samples += group.count();
            nanos += group.count() * group.periodNanos();
        }
        FunctionFrames frames = new FunctionFrames(profile);
        long[] self = new long[frames.size()];
        long[] selfNanos = new long[frames.size()];
        long[] total = new long[frames.size()];
        long[] totalNanos = new long[frames.size()];
        int[] distinct = new int[frames.maxDepth()];
        for (int stack = 0; stack < stackSamples.length; stack++) {
            if (stackSamples[stack] == 0) {
                continue;
            }
            int leaf = frames.leaf(stack);
            self[leaf] += stackSamples[stack];
            selfNanos[leaf] += stackNanos[stack];
            int count = frames.distinct(stack, distinct);
            for (int i = 0; i < count; i++) {
                total[distinct[i]] += stackSamples[stack];
                totalNanos[distinct[i]] += stackNanos[stack];
            }
        }
        List<Row> rows = new ArrayList<>(frames.size());
        for (int f = 0; f < frames.size(); f++) {
            if (total[f] > 0) {
                RootFirstFrames.Frame frame = frames.frame(f);
                rows.add(new Row(frame.name(), frame.file(), self[f], total[f], share(self[f], samples),
                        share(total[f], samples), selfNanos[f], totalNanos[f]));
            }
        }
        return new FunctionTable(samples, nanos, rows);
    }

    /** The profile's samples: the sum of the self counts. */
    public long samples() {
        return samples;
    }

    /** Every function, in no particular order. */
    public List<Row> rows() {
        return rows;
    }

    /**
     * The functions whose name or file contains {@code search} (any case; null or empty: all), ordered, from
     * {@code offset}, at most {@code limit} of them. Ties go by the other count, then name and file.
     */
    public Page page(Order order, String search, int offset, int limit) {
        String needle = search == null ? "" : search.toLowerCase(Locale.ROOT);
        List<Row> matching = new ArrayList<>();
        for (Row row : rows) {
            if (needle.isEmpty() || row.name().toLowerCase(Locale.ROOT).contains(needle)
                    || (row.file() != null && row.file().toLowerCase(Locale.ROOT).contains(needle))) {
                matching.add(row);
            }
        }
        Comparator<Row> bySelf = Comparator.comparingLong(Row::self).reversed();
        Comparator<Row> byTotal = Comparator.comparingLong(Row::total).reversed();
        matching.sort((order == Order.SELF ? bySelf.thenComparing(byTotal) : byTotal.thenComparing(bySelf))
                .thenComparing(Row::name).thenComparing(Row::file, Comparator.nullsFirst(Comparator.naturalOrder())));
        int from = Math.min(Math.max(offset, 0), matching.size());
        int to = (int) Math.min(matching.size(), (long) from + Math.max(limit, 0));
        return new Page(samples, nanos, rows.size(), matching.size(), from, List.copyOf(matching.subList(from, to)));
    }

    private static double share(long count, long of) {
        return of == 0 ? 0 : (double) count / of;
    }
}
