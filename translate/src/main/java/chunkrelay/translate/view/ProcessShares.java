package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexedSet;

import java.util.ArrayList;
import java.util.List;

/**
 * One side of a regression check: per unit (a profiler, that is a process, or a profiler's thread) its samples and,
 * per function, its self and total samples, so that a function's share can be taken in each unit apart. Functions are
 * indexed by a {@code functions} map shared by both sides (the flame graph's name and file). Built in one walk of the
 * merged sample groups; holds two counts per function and unit, never per sample or chunk.
 */
final class ProcessShares {
    /** What a unit is. */
    enum Unit { PROFILER, THREAD }

    final Unit unit;
    final IndexedSet<String> units = IndexedSet.byValue();
    private final MergedProfile profile;
    private final FunctionFrames frames;
    /** Per function of {@link #frames}, its index in the shared set. */
    private final int[] shared;
    private final int[] unitOfThread;
    /** Per unit, the samples whose leaf is a function taken out ({@link #takeOut}); null while none is. */
    long[] takenOut;
    /** Per function, per unit: its total samples among those taken out. */
    final List<long[]> takenOutTotal = new ArrayList<>();
    long[] unitSamples;
    /** Per function (index of the shared set), per unit: self samples; null while the side has none. */
    final List<long[]> self = new ArrayList<>();
    final List<long[]> total = new ArrayList<>();
    long samples;

    private ProcessShares(Unit unit, MergedProfile profile, IndexedSet<RootFirstFrames.Frame> functions) {
        this.unit = unit;
        this.profile = profile;
        this.frames = new FunctionFrames(profile);
        this.shared = new int[frames.size()];
        for (int f = 0; f < shared.length; f++) {
            shared[f] = functions.indexOf(frames.frame(f));
        }
        this.unitOfThread = new int[profile.threads().size()];
    }

    static ProcessShares of(MergedProfile profile, Unit unit, IndexedSet<RootFirstFrames.Frame> functions) {
        ProcessShares side = new ProcessShares(unit, profile, functions);
        int[] unitOfThread = side.unitOfThread;
        FunctionFrames frames = side.frames;
        int[] shared = side.shared;
        for (int t = 0; t < unitOfThread.length; t++) {
            MergedProfile.Thread thread = profile.threads().get(t);
            // the process is the profiler id: MergedProfile.Thread.profilerId, however the merge read it
            String key = unit == Unit.PROFILER ? thread.profilerId() : thread.profilerId() + "/" + thread.threadId();
            unitOfThread[t] = side.units.indexOf(key);
        }
        int unitCount = side.units.size();
        side.unitSamples = new long[unitCount];
        int[] distinct = new int[frames.maxDepth()];
        for (MergedProfile.SampleGroup group : profile.samples()) {
            int u = unitOfThread[group.thread()];
            long count = group.count();
            side.unitSamples[u] += count;
            side.samples += count;
            side.counts(side.self, shared[frames.leaf(group.stack())], unitCount)[u] += count;
            int depth = frames.distinct(group.stack(), distinct);
            for (int i = 0; i < depth; i++) {
                side.counts(side.total, shared[distinct[i]], unitCount)[u] += count;
            }
        }
        return side;
    }

    private long[] counts(List<long[]> table, int function, int unitCount) {
        while (table.size() <= function) {
            table.add(null);
        }
        long[] counts = table.get(function);
        if (counts == null) {
            counts = new long[unitCount];
            table.set(function, counts);
        }
        return counts;
    }

    /**
     * Takes the samples whose leaf is one of {@code leaves} (shared indices) out of every other function's shares:
     * per unit how many, and per function how many of them it is in. One walk of the sample groups.
     */
    void takeOut(java.util.Set<Integer> leaves) {
        int unitCount = units.size();
        takenOut = new long[unitCount];
        takenOutTotal.clear();
        int[] distinct = new int[frames.maxDepth()];
        for (MergedProfile.SampleGroup group : profile.samples()) {
            if (!leaves.contains(shared[frames.leaf(group.stack())])) {
                continue;
            }
            int u = unitOfThread[group.thread()];
            takenOut[u] += group.count();
            int depth = frames.distinct(group.stack(), distinct);
            for (int i = 0; i < depth; i++) {
                counts(takenOutTotal, shared[distinct[i]], unitCount)[u] += group.count();
            }
        }
    }

    /** The units with at least {@code minSamples} samples: those whose shares are judged. */
    int judgedUnits(long minSamples) {
        int judged = 0;
        for (long samplesOfUnit : unitSamples) {
            if (samplesOfUnit >= minSamples) {
                judged++;
            }
        }
        return judged;
    }

    /** A function's samples on this side, all units together. */
    long sum(List<long[]> table, int function) {
        long[] counts = function < table.size() ? table.get(function) : null;
        long sum = 0;
        if (counts != null) {
            for (long count : counts) {
                sum += count;
            }
        }
        return sum;
    }

    /**
     * The mean and sample variance of a function's share in each unit of at least {@code minSamples} samples, and how
     * many units: {mean, variance, units}; when no unit has enough samples, the share of all samples, 0, 0. With
     * {@code minus} (null: all samples), the shares are of the samples not taken out ({@link #takeOut}), and
     * {@code minus} holds per function and unit how many of the function's samples were taken out.
     */
    double[] spread(List<long[]> table, List<long[]> minus, int function, long minSamples) {
        long[] counts = function < table.size() ? table.get(function) : null;
        long[] less = minus != null && function < minus.size() ? minus.get(function) : null;
        int n = 0;
        double mean = 0;
        double squares = 0;
        for (int u = 0; u < unitSamples.length; u++) {
            long of = unitSamples[u] - (minus != null && takenOut != null ? takenOut[u] : 0);
            if (unitSamples[u] < minSamples || of <= 0) {
                continue;
            }
            double share = counts == null ? 0 : (double) (counts[u] - (less == null ? 0 : less[u])) / of;
            n++;
            // Welford's running mean and sum of squared deviations
            double delta = share - mean;
            mean += delta / n;
            squares += delta * (share - mean);
        }
        if (n == 0) {
            return new double[] {samples == 0 ? 0 : (double) sum(table, function) / samples, 0, 0};
        }
        return new double[] {mean, n > 1 ? squares / (n - 1) : 0, n};
    }
}
