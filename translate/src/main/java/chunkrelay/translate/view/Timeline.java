package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples per time step of a {@link MergedProfile}, per thread or per profiler: when the profiled program was busy,
 * from the samples' times alone (no span or event data needed). The profile counts them on its {@link TimeGrid}
 * while it is merged, from the chunks' sample times or from rollups' ticks.
 */
public final class Timeline {
    /** What one series of a timeline counts. */
    public enum By { THREAD, PROFILER }

    /**
     * One series: a thread (its profiler, id and name) or a profiler (thread id and name null), and its samples in each
     * step.
     */
    public record Series(String label, String profilerId, String threadId, String threadName, long samples,
                         long[] counts) {
    }

    /**
     * A timeline of {@code steps} steps of {@code stepNanos} from {@code fromNanos}, the busiest series first.
     */
    public record Result(long fromNanos, long stepNanos, int steps, List<Series> series) {
    }

    private Timeline() {
    }

    /**
     * The series of a profile merged on a grid: its threads' step counts, or their sums per profiler.
     *
     * @throws IllegalArgumentException when the profile was merged without a grid
     */
    public static Result of(MergedProfile profile, By by) {
        TimeGrid grid = profile.grid();
        if (grid == null) {
            throw new IllegalArgumentException("a timeline needs a profile merged on a time grid");
        }
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, MergedProfile.Thread> keyed = new LinkedHashMap<>();
        for (int t = 0; t < profile.threads().size(); t++) {
            MergedProfile.Thread thread = profile.threads().get(t);
            String key = by == By.THREAD ? thread.profilerId() + "/" + thread.threadId() : thread.profilerId();
            keyed.putIfAbsent(key, thread);
            long[] series = counts.computeIfAbsent(key, k -> new long[grid.steps()]);
            long[] steps = profile.stepCounts(t);
            for (int step = 0; step < series.length; step++) {
                series[step] += steps[step];
            }
        }
        List<Series> series = new ArrayList<>(counts.size());
        for (Map.Entry<String, long[]> entry : counts.entrySet()) {
            MergedProfile.Thread thread = keyed.get(entry.getKey());
            long total = 0;
            for (long count : entry.getValue()) {
                total += count;
            }
            if (total == 0) {
                continue;
            }
            series.add(by == By.THREAD
                    ? new Series(thread.label(), thread.profilerId(), thread.threadId(), thread.name(), total,
                            entry.getValue())
                    : new Series("profiler " + thread.profilerId(), thread.profilerId(), null, null, total,
                            entry.getValue()));
        }
        series.sort((a, b) -> Long.compare(b.samples(), a.samples()));
        return new Result(grid.originNanos(), grid.stepNanos(), grid.steps(), List.copyOf(series));
    }
}
