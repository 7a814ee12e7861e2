package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexedSet;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which functions take a larger or smaller share of the time in a comparison than in a baseline, and how sure that
 * is. A function's share is taken in each process (profiler) of a side apart, and the two sides' per-process shares
 * are compared with Welch's t-test: so a share that moved because load moved between processes (busier web servers
 * on one side, busier workers on the other) is not a change, while one that moved in every process is. Self and
 * total shares are judged apart; see {@link Settings} for what is judged and flagged. When one function takes a larger
 * share every other one's shrinks although its cost did not change: so once a function is flagged, its self samples
 * are taken out and the others are judged on their shares of the rest, the most surely changed function first.
 */
public final class Regressions {
    /** At most this many changed functions are taken out of the others' shares. */
    static final int MAX_TAKEN_OUT = 10;
    /** What a measure of a function became. */
    public enum Verdict { REGRESSION, IMPROVEMENT, UNCHANGED, NOT_JUDGED }

    /**
     * The thresholds.
     *
     * @param minShare       a function is judged on a measure when its share is at least this on either side
     * @param minChange      and flagged only when its share moved by at least this fraction of the baseline share
     * @param confidence     and the confidence is at least this
     * @param minUnitSamples a process (or thread) with fewer samples on a side is left out of that side's spread
     */
    public record Settings(double minShare, double minChange, double confidence, long minUnitSamples) {
    }

    /** One side: its label, samples and chunks, and the units its spread was taken over. */
    public record Side(String label, long samples, int chunks, String unit, int units, int judgedUnits) {
    }

    /**
     * One measure (self or total) of one function: the mean share per unit on each side, the change (comparison
     * minus baseline), the change as a fraction of the baseline share (null when that is 0), the confidence that the
     * shares differ ({@code 1 - p·m}, Welch's two-sided p-value times the number of measures judged; null when not
     * judged) and the verdict.
     */
    public record Measure(double baselineShare, double comparisonShare, double change, Double relativeChange,
                          Double confidence, Verdict verdict) {
    }

    /** One function on both sides: its samples, and its self and total measures. */
    public record FunctionChange(String name, String file, Verdict verdict, long baselineSelf, long comparisonSelf,
                                 long baselineTotal, long comparisonTotal, Measure self, Measure total) {
    }

    /** The comparison: flagged functions first, then by the change of self share, then of total share. */
    public record Result(Side baseline, Side comparison, Settings settings, int judged, List<FunctionChange> functions) {
    }

    private Regressions() {
    }

    public static Result compare(String baselineLabel, MergedProfile baseline, String comparisonLabel,
                                 MergedProfile comparison, Settings settings) {
        IndexedSet<RootFirstFrames.Frame> functions = IndexedSet.byValue();
        ProcessShares.Unit unit = ProcessShares.Unit.PROFILER;
        ProcessShares before = ProcessShares.of(baseline, unit, functions);
        ProcessShares after = ProcessShares.of(comparison, unit, functions);
        if (before.judgedUnits(settings.minUnitSamples()) < 2 || after.judgedUnits(settings.minUnitSamples()) < 2) {
            // one process on a side: its threads are the spread
            unit = ProcessShares.Unit.THREAD;
            before = ProcessShares.of(baseline, unit, functions);
            after = ProcessShares.of(comparison, unit, functions);
        }
        boolean judging = before.judgedUnits(settings.minUnitSamples()) >= 2
                && after.judgedUnits(settings.minUnitSamples()) >= 2;
        List<RootFirstFrames.Frame> names = functions.values();

        // first the spreads and p-values, then the confidence once the number of measures judged is known
        double[][] self = new double[names.size()][];
        double[][] total = new double[names.size()][];
        int judged = 0;
        for (int f = 0; f < names.size(); f++) {
            self[f] = estimate(before, after, before.self, after.self, null, null, f, settings, judging);
            total[f] = estimate(before, after, before.total, after.total, null, null, f, settings, judging);
            judged += (Double.isNaN(self[f][2]) ? 0 : 1) + (Double.isNaN(total[f][2]) ? 0 : 1);
        }
        // when one function takes a larger share, every other one's share shrinks with its cost unchanged: so the
        // self time of the most surely changed function is taken out of the others' shares, and they are judged
        // again, until no other changed or MAX_TAKEN_OUT functions are out
        Set<Integer> out = new HashSet<>();
        for (int next = mostSurelyChanged(self, out, judged, settings); next >= 0 && out.size() < MAX_TAKEN_OUT;
             next = mostSurelyChanged(self, out, judged, settings)) {
            out.add(next);
            before.takeOut(out);
            after.takeOut(out);
            for (int f = 0; f < names.size(); f++) {
                if (!out.contains(f)) {
                    self[f] = estimate(before, after, before.self, after.self, List.of(), List.of(), f, settings,
                            judging);
                    total[f] = estimate(before, after, before.total, after.total, before.takenOutTotal,
                            after.takenOutTotal, f, settings, judging);
                }
            }
        }
        List<FunctionChange> changes = new ArrayList<>(names.size());
        for (int f = 0; f < names.size(); f++) {
            Measure selfMeasure = measure(self[f], judged, settings);
            Measure totalMeasure = measure(total[f], judged, settings);
            Verdict verdict = flagged(selfMeasure.verdict()) ? selfMeasure.verdict()
                    : flagged(totalMeasure.verdict()) ? totalMeasure.verdict()
                    : selfMeasure.verdict() == Verdict.UNCHANGED || totalMeasure.verdict() == Verdict.UNCHANGED
                    ? Verdict.UNCHANGED : Verdict.NOT_JUDGED;
            RootFirstFrames.Frame frame = names.get(f);
            changes.add(new FunctionChange(frame.name(), frame.file(), verdict, before.sum(before.self, f),
                    after.sum(after.self, f), before.sum(before.total, f), after.sum(after.total, f), selfMeasure,
                    totalMeasure));
        }
        changes.sort(Comparator.comparing((FunctionChange c) -> !flagged(c.verdict()))
                .thenComparingDouble(c -> -Math.abs(c.self().change()))
                .thenComparingDouble(c -> -Math.abs(c.total().change()))
                .thenComparing(FunctionChange::name));
        String unitName = unit.name().toLowerCase(java.util.Locale.ROOT);
        return new Result(new Side(baselineLabel, before.samples, baseline.chunks(), unitName, before.units.size(),
                before.judgedUnits(settings.minUnitSamples())),
                new Side(comparisonLabel, after.samples, comparison.chunks(), unitName, after.units.size(),
                        after.judgedUnits(settings.minUnitSamples())), settings, judged, List.copyOf(changes));
    }

    /**
     * The function not yet taken out whose self measure is flagged with the highest confidence (then the largest
     * relative change), or -1.
     */
    private static int mostSurelyChanged(double[][] self, Set<Integer> out, int judged, Settings settings) {
        int best = -1;
        for (int f = 0; f < self.length; f++) {
            if (out.contains(f) || !flagged(measure(self[f], judged, settings).verdict())) {
                continue;
            }
            if (best < 0 || self[f][2] < self[best][2] || (self[f][2] == self[best][2]
                    && Math.abs(relative(self[f])) > Math.abs(relative(self[best])))) {
                best = f;
            }
        }
        return best;
    }

    private static double relative(double[] estimate) {
        return estimate[0] == 0 ? Double.POSITIVE_INFINITY : (estimate[1] - estimate[0]) / estimate[0];
    }

    /**
     * {baseline share, comparison share, p-value (NaN: not judged)}; with {@code beforeLess}/{@code afterLess}
     * (per function and unit, the samples taken out), of the samples not taken out.
     */
    private static double[] estimate(ProcessShares before, ProcessShares after, List<long[]> beforeTable,
                                     List<long[]> afterTable, List<long[]> beforeLess, List<long[]> afterLess,
                                     int function, Settings settings, boolean judging) {
        double[] b = before.spread(beforeTable, beforeLess, function, settings.minUnitSamples());
        double[] c = after.spread(afterTable, afterLess, function, settings.minUnitSamples());
        // a unit whose samples were all taken out has no share of the rest: fewer than two left is no spread
        boolean judged = judging && Math.max(b[0], c[0]) >= settings.minShare() && b[2] >= 2 && c[2] >= 2;
        double p = judged ? WelchTest.pValue(b[0], b[1], (int) b[2], c[0], c[1], (int) c[2]) : Double.NaN;
        return new double[] {b[0], c[0], p};
    }

    private static Measure measure(double[] estimate, int judged, Settings settings) {
        double change = estimate[1] - estimate[0];
        Double relative = estimate[0] == 0 ? null : change / estimate[0];
        if (Double.isNaN(estimate[2])) {
            return new Measure(estimate[0], estimate[1], change, relative, null, Verdict.NOT_JUDGED);
        }
        // Bonferroni: the chance that any of the judged measures moved this far by chance alone
        double confidence = 1 - Math.min(1, estimate[2] * judged);
        boolean large = relative == null ? change > 0 : Math.abs(relative) >= settings.minChange();
        Verdict verdict = confidence >= settings.confidence() && large
                ? (change > 0 ? Verdict.REGRESSION : Verdict.IMPROVEMENT) : Verdict.UNCHANGED;
        return new Measure(estimate[0], estimate[1], change, relative, confidence, verdict);
    }

    private static boolean flagged(Verdict verdict) {
        return verdict == Verdict.REGRESSION || verdict == Verdict.IMPROVEMENT;
    }
}
