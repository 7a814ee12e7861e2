package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A differential profile of two {@link MergedProfile}s (a baseline and a comparison): per function (self and total)
 * and per stack, the share of each side's samples and the change of share. Shares are of each side's own total, so
 * that two periods of different length, or of different traffic, compare: a function that takes 10% of the CPU in
 * both has a change of 0 however many samples each side holds.
 */
public final class ProfileDiff {
    /** One side: what it is (for people) and its samples in all. */
    public record Side(String label, long samples, int chunks) {
    }

    /**
     * One function's samples on both sides: self (it is the leaf) and total (it is anywhere on the stack, counted
     * once per sample however often it recurses), with the shares of each side's total and their change
     * (comparison share minus baseline share; positive: the function takes more of the time).
     */
    public record FunctionChange(String name, String file, long baselineSelf, long comparisonSelf,
                                 long baselineTotal, long comparisonTotal, double baselineSelfShare,
                                 double comparisonSelfShare, double selfChange, double baselineTotalShare,
                                 double comparisonTotalShare, double totalChange) {
    }

    /** One stack (its functions as indices into {@link Result#functions()}, root first) on both sides. */
    public record StackChange(int[] functions, long baselineSamples, long comparisonSamples, double baselineShare,
                              double comparisonShare, double change) {
    }

    /** The comparison; functions and stacks with the largest change (either way) first. */
    public record Result(Side baseline, Side comparison, List<FunctionChange> functions, List<StackChange> stacks) {
    }

    private ProfileDiff() {
    }

    public static Result compare(String baselineLabel, MergedProfile baseline, String comparisonLabel,
                                 MergedProfile comparison) {
        Map<RootFirstFrames.Frame, long[]> functionCounts = new LinkedHashMap<>();
        Map<List<RootFirstFrames.Frame>, long[]> stackCounts = new LinkedHashMap<>();
        count(baseline, 0, functionCounts, stackCounts);
        count(comparison, 1, functionCounts, stackCounts);
        long baselineTotal = baseline.sampleCount();
        long comparisonTotal = comparison.sampleCount();

        List<Map.Entry<RootFirstFrames.Frame, long[]>> ordered = new ArrayList<>(functionCounts.entrySet());
        ordered.sort(Comparator.comparingDouble((Map.Entry<RootFirstFrames.Frame, long[]> e) -> -Math.abs(
                        share(e.getValue()[3], comparisonTotal) - share(e.getValue()[2], baselineTotal)))
                .thenComparing(e -> e.getKey().name()));
        Map<RootFirstFrames.Frame, Integer> indexOf = new HashMap<>();
        List<FunctionChange> functions = new ArrayList<>(ordered.size());
        for (Map.Entry<RootFirstFrames.Frame, long[]> entry : ordered) {
            long[] c = entry.getValue();
            indexOf.put(entry.getKey(), functions.size());
            double baseSelf = share(c[0], baselineTotal);
            double compSelf = share(c[1], comparisonTotal);
            double baseAll = share(c[2], baselineTotal);
            double compAll = share(c[3], comparisonTotal);
            functions.add(new FunctionChange(entry.getKey().name(), entry.getKey().file(), c[0], c[1], c[2], c[3],
                    baseSelf, compSelf, compSelf - baseSelf, baseAll, compAll, compAll - baseAll));
        }
        List<StackChange> stacks = new ArrayList<>(stackCounts.size());
        for (Map.Entry<List<RootFirstFrames.Frame>, long[]> entry : stackCounts.entrySet()) {
            int[] indices = entry.getKey().stream().mapToInt(indexOf::get).toArray();
            long[] c = entry.getValue();
            double base = share(c[0], baselineTotal);
            double comp = share(c[1], comparisonTotal);
            stacks.add(new StackChange(indices, c[0], c[1], base, comp, comp - base));
        }
        stacks.sort(Comparator.comparingDouble((StackChange s) -> -Math.abs(s.change()))
                .thenComparingLong(s -> -(s.baselineSamples() + s.comparisonSamples())));
        return new Result(new Side(baselineLabel, baselineTotal, baseline.chunks()),
                new Side(comparisonLabel, comparisonTotal, comparison.chunks()), List.copyOf(functions),
                List.copyOf(stacks));
    }

    /**
     * Adds one side's counts: function counts are {baseline self, comparison self, baseline total, comparison
     * total}, stack counts {baseline, comparison}.
     */
    private static void count(MergedProfile profile, int side, Map<RootFirstFrames.Frame, long[]> functionCounts,
                              Map<List<RootFirstFrames.Frame>, long[]> stackCounts) {
        long[] perStack = new long[profile.stacks().size()];
        for (MergedProfile.SampleGroup group : profile.samples()) {
            perStack[group.stack()] += group.count();
        }
        for (int stack = 0; stack < perStack.length; stack++) {
            long samples = perStack[stack];
            if (samples == 0) {
                continue;
            }
            List<RootFirstFrames.Frame> frames = RootFirstFrames.of(profile, stack);
            stackCounts.computeIfAbsent(frames, k -> new long[2])[side] += samples;
            Set<RootFirstFrames.Frame> seen = new HashSet<>();
            for (RootFirstFrames.Frame frame : frames) {
                if (seen.add(frame)) {
                    functionCounts.computeIfAbsent(frame, k -> new long[4])[2 + side] += samples;
                }
            }
            if (!frames.isEmpty()) {
                functionCounts.computeIfAbsent(frames.get(frames.size() - 1), k -> new long[4])[side] += samples;
            }
        }
    }

    private static double share(long samples, long total) {
        return total == 0 ? 0 : (double) samples / total;
    }
}
