package chunkrelay.retry;

import java.time.Clock;
import java.time.Duration;

/** Waits between attempts; injectable so tests can observe backoff without spending it. */
@FunctionalInterface
public interface Sleeper {

    /** The production sleeper: an interruptible {@link Thread#sleep}. */
    Sleeper THREAD_SLEEP = duration -> Thread.sleep(duration.toMillis(), (int) (duration.toNanosPart() % 1_000_000));

    /**
     * The waits of work whose deadlines are on {@code clock}, so that a wait and the deadline it counts against pass
     * on the same time: a clock that takes waits itself (a test's manual clock, which moves by what is slept) takes
     * them; any other clock is real time, waited with {@link #THREAD_SLEEP}.
     */
    static Sleeper on(Clock clock) {
        return clock instanceof Sleeper waits ? waits : THREAD_SLEEP;
    }

    void sleep(Duration duration) throws InterruptedException;
}
