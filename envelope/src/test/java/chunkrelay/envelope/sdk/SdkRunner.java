package chunkrelay.envelope.sdk;

import java.time.Duration;
import java.util.List;

/**
 * A real Sentry SDK that can be pointed at a relay: it profiles recognisable busy work with continuous profiling,
 * stops the profiler and flushes. Failures are {@link AssertionError}s naming the SDK and the step.
 */
public interface SdkRunner {

    /** Short SDK name used in messages and log file names, e.g. {@code node}. */
    String sdk();

    /** What the chunks of a run must contain. */
    ExpectedProfile expectedProfile();

    /** Installs what the SDK needs (once, cached across runs) and runs it with its DSN pointing at the target. */
    Run run(RelayTarget target);

    /** The steps a run took, in order, with their timings and logs. */
    record Run(String sdk, List<SdkProcess.StepResult> steps) {

        public Duration elapsed() {
            return steps.stream().map(SdkProcess.StepResult::elapsed).reduce(Duration.ZERO, Duration::plus);
        }

        public String timings() {
            StringBuilder text = new StringBuilder(sdk);
            steps.forEach(step -> text.append(' ').append(step.step()).append('=').append(step.elapsed().toMillis())
                    .append("ms"));
            return text.toString();
        }
    }
}
