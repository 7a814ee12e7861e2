package chunkrelay.envelope.views;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileDiff;
import chunkrelay.translate.view.TimeGrid;
import chunkrelay.translate.view.Timeline;
import chunkrelay.translate.view.TraceIndex;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.List;

/**
 * The questions beyond "what ran in this range", answered from the archived OTLP forms through {@link ProfileViews}
 * (same listing, same chunk cap): which traces have samples (profile → trace), the samples of one trace (trace →
 * profile), what changed between two periods or releases (differential), and when the program was busy (timeline).
 */
@Singleton
public class ProfileQuestions {
    /** A timeline of more steps is refused: no screen draws them. */
    static final int MAX_STEPS = 2_000;
    /** The default step cuts the range into about this many steps. */
    private static final int DEFAULT_STEPS = 120;
    private static final long[] NICE_STEPS_SECONDS = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
            10800, 21600, 43200, 86400};

    private final ProfileViews views;

    public ProfileQuestions(ProfileViews views) {
        this.views = views;
    }

    /** The traces of a range, with the range's linked and all samples. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record TraceList(long project, String from, String to, long linkedSamples, long samples,
                            List<TraceIndex.TraceSummary> traces) {
    }

    /** The traces whose spans have linked samples in the query's range and filters. */
    public TraceList traces(ViewQuery query) {
        MergedProfile profile = views.profile(query);
        List<TraceIndex.TraceSummary> traces = TraceIndex.of(profile);
        long linked = traces.stream().mapToLong(TraceIndex.TraceSummary::samples).sum();
        return new TraceList(query.project(), query.from().toString(), query.to().toString(), linked,
                profile.sampleCount(), traces);
    }

    /**
     * The samples linked to one trace, from the chunks whose samples overlap the query's range (the trace's time).
     *
     * @throws RelayError 404 when no sample of the range is linked to it
     */
    public MergedProfile traceProfile(ViewQuery query) {
        MergedProfile profile = views.profile(query);
        if (profile.sampleCount() == 0) {
            throw new RelayError(HttpStatus.NOT_FOUND,
                    "no sample between " + query.from() + " and " + query.to() + " is linked to trace "
                            + query.traceId() + "; give the trace's time as from/to");
        }
        return profile;
    }

    /** Both sides merged and compared, shares normalised by each side's total. */
    public ProfileDiff.Result diff(DiffSide baseline, DiffSide comparison) {
        return ProfileDiff.compare(baseline.label(), views.profile(baseline.query()), comparison.label(),
                views.profile(comparison.query()));
    }

    /**
     * Samples per step of the query's range, per thread or profiler; the steps lie on multiples of the step since
     * the Unix epoch, the first one holding the range's start.
     *
     * @param step null for a step that cuts the range into about 120
     * @throws RelayError 400 for a step that is not positive or makes more than 2000 steps
     */
    public Timeline.Result timeline(ViewQuery query, Duration step, Timeline.By by) {
        long from = TimeBuckets.nanos(query.from());
        long to = TimeBuckets.nanos(query.to());
        long stepNanos = step == null ? niceStep(to - from) : step.toNanos();
        if (stepNanos <= 0) {
            throw ViewQuery.bad("step must be positive, got " + step);
        }
        // steps on multiples of the step since the epoch: whole rollups then fill whole steps
        long origin = Math.floorDiv(from, stepNanos) * stepNanos;
        long steps = (to - origin + stepNanos - 1) / stepNanos;
        if (steps > MAX_STEPS) {
            throw ViewQuery.bad("the range makes " + steps + " steps of " + Duration.ofNanos(stepNanos)
                    + "; at most " + MAX_STEPS + ": widen step or narrow from/to");
        }
        return Timeline.of(views.profile(query, TimeGrid.aligned(from, to, stepNanos)), by);
    }

    private static long niceStep(long rangeNanos) {
        long wanted = rangeNanos / DEFAULT_STEPS;
        for (long seconds : NICE_STEPS_SECONDS) {
            if (seconds * TimeBuckets.SECOND_NANOS >= wanted) {
                return seconds * TimeBuckets.SECOND_NANOS;
            }
        }
        long day = NICE_STEPS_SECONDS[NICE_STEPS_SECONDS.length - 1] * TimeBuckets.SECOND_NANOS;
        return (wanted + day - 1) / day * day;
    }
}
