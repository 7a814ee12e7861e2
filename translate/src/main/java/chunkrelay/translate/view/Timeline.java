package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples per time step of a {@link MergedProfile}, per thread or per profiler: when the profiled program was busy,
 * from the samples' timestamps alone (no span or event data needed).
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
     * Counts a profile's samples in {@code [fromNanos, fromNanos + steps × stepNanos)}; samples outside are not
     * counted.
     */
    public static Result of(MergedProfile profile, long fromNanos, long stepNanos, int steps, By by) {
        if (stepNanos <= 0 || steps <= 0) {
            throw new IllegalArgumentException("a timeline needs a positive step and step count");
        }
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, MergedProfile.Thread> keyed = new LinkedHashMap<>();
        String[] keyOfThread = new String[profile.threads().size()];
        for (int t = 0; t < keyOfThread.length; t++) {
            MergedProfile.Thread thread = profile.threads().get(t);
            keyOfThread[t] = by == By.THREAD ? thread.profilerId() + "/" + thread.threadId() : thread.profilerId();
            keyed.putIfAbsent(keyOfThread[t], thread);
        }
        for (MergedProfile.SampleGroup group : profile.samples()) {
            long[] series = counts.computeIfAbsent(keyOfThread[group.thread()], k -> new long[steps]);
            for (long timestamp : group.timestamps()) {
                long offset = timestamp - fromNanos;
                if (offset >= 0 && offset / stepNanos < steps) {
                    series[(int) (offset / stepNanos)]++;
                }
            }
        }
        List<Series> series = new ArrayList<>(counts.size());
        for (Map.Entry<String, long[]> entry : counts.entrySet()) {
            MergedProfile.Thread thread = keyed.get(entry.getKey());
            long total = 0;
            for (long count : entry.getValue()) {
                total += count;
            }
            series.add(by == By.THREAD
                    ? new Series(thread.label(), thread.profilerId(), thread.threadId(), thread.name(), total,
                            entry.getValue())
                    : new Series("profiler " + thread.profilerId(), thread.profilerId(), null, null, total,
                            entry.getValue()));
        }
        series.sort((a, b) -> Long.compare(b.samples(), a.samples()));
        return new Result(fromNanos, stepNanos, steps, List.copyOf(series));
    }
}
