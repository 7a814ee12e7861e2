package chunkrelay.bench;

import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.views.RangeReader;
import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.Regressions;
import chunkrelay.translate.view.ViewFilter;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The top-functions table and the regressions of a {@link FleetArchive}'s ranges, as the views answer them in this
 * process: the range merged (RangeReader.merge) and its table built and paged, or both releases of the fleet merged as
 * two sides and judged; against the floor of the same range's profile answer ({@link FleetQueryCost}'s rollups row,
 * measured in the same run). Every table's self counts must add up to the merge's samples, and the regressions of the
 * fleet's two releases (the same program) must flag nothing.
 */
final class FleetFunctionCost {
    private static final int WARM_UP_ROUNDS = 2;
    private static final int ROUNDS = 5;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** The shipped defaults of relay.views.regressions.*. */
    private static final Regressions.Settings DEFAULTS = new Regressions.Settings(0.001, 0.05, 0.99, 100);

    /** Median wall and CPU of the calling thread. */
    record Cost(double wallMillis, double cpuMillis) {
    }

    /** One range: its profile floor, the table, the regressions, and what they held. */
    record Row(String range, FleetQueryCost.Cost floor, Cost table, Cost regressions, int functions, int units,
               int flagged) {
    }

    private FleetFunctionCost() {
    }

    static Row row(String label, RangeReader reader, long from, long to, FleetQueryCost.Cost floor) {
        long project = Long.parseLong(FleetArchive.PROJECT);
        int[] functions = new int[1];
        Cost table = cost(() -> {
            MergedProfile profile = reader.merge(project, ViewFilter.between(from, to), null).profile();
            FunctionTable all = FunctionTable.of(profile);
            long self = all.rows().stream().mapToLong(FunctionTable.Row::self).sum();
            if (self != profile.sampleCount()) {
                throw new IllegalStateException(label + ": self counts add up to " + self + ", the merge holds "
                        + profile.sampleCount());
            }
            functions[0] = all.page(FunctionTable.Order.SELF, null, 0, 100).functions();
            return all;
        });
        Regressions.Result[] last = new Regressions.Result[1];
        Cost regressions = cost(() -> {
            last[0] = Regressions.compare("old", side(reader, project, from, to, 0), "new",
                    side(reader, project, from, to, FleetArchive.PROFILERS - 1), DEFAULTS);
            return last[0];
        });
        int flagged = (int) last[0].functions().stream().filter(f -> f.verdict() == Regressions.Verdict.REGRESSION
                || f.verdict() == Regressions.Verdict.IMPROVEMENT).count();
        if (flagged > 0) {
            throw new IllegalStateException(label + ": the fleet's releases run the same program, yet " + flagged
                    + " function(s) flagged: " + last[0].functions().get(0));
        }
        Row row = new Row(label, floor, table, regressions, functions[0], last[0].baseline().units()
                + last[0].comparison().units(), flagged);
        System.err.println("[bench fleet-functions] " + row);
        return row;
    }

    /** The release of a profiler, as a side over the range. */
    private static MergedProfile side(RangeReader reader, long project, long from, long to, int profiler) {
        String release = FleetChunks.release(profiler, FleetArchive.PROFILERS);
        return reader.merge(project, new ViewFilter(from, to, null, null, null, null, null, release, null), null)
                .profile();
    }

    private static Cost cost(Supplier<Object> answer) {
        double[] wall = new double[ROUNDS];
        double[] cpu = new double[ROUNDS];
        for (int round = -WARM_UP_ROUNDS; round < ROUNDS; round++) {
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            long wallStart = System.nanoTime();
            answer.get();
            if (round >= 0) {
                wall[round] = (System.nanoTime() - wallStart) / 1e6;
                cpu[round] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e6;
            }
        }
        return new Cost(Medians.of(wall), Medians.of(cpu));
    }

    /** The lines the report prints. */
    static List<String> lines(List<Row> rows) {
        List<String> lines = new ArrayList<>();
        lines.add("top functions and regressions (release A / release B of the fleet) against range length;"
                + " x = against the range's profile answer (the floor, above):");
        lines.add(String.format(Locale.ROOT, "%-12s %9s %9s | %9s %9s %6s %6s | %9s %9s %6s %6s | %9s %6s %7s",
                "range", "floor ms", "CPU ms", "table ms", "CPU ms", "x wall", "x CPU", "regr. ms", "CPU ms",
                "x wall", "x CPU", "functions", "units", "flagged"));
        for (Row r : rows) {
            FleetQueryCost.Cost f = r.floor();
            lines.add(String.format(Locale.ROOT,
                    "%-12s %9.1f %9.1f | %9.1f %9.1f %6.2f %6.2f | %9.1f %9.1f %6.2f %6.2f | %9d %6d %7d", r.range(),
                    f.wallMillis(), f.cpuMillis(), r.table().wallMillis(), r.table().cpuMillis(),
                    r.table().wallMillis() / f.wallMillis(), r.table().cpuMillis() / f.cpuMillis(),
                    r.regressions().wallMillis(), r.regressions().cpuMillis(),
                    r.regressions().wallMillis() / f.wallMillis(), r.regressions().cpuMillis() / f.cpuMillis(),
                    r.functions(), r.units(), r.flagged()));
        }
        return lines;
    }
}
