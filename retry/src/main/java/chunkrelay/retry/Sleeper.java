package chunkrelay.retry;

import java.time.Duration;

/** Waits between attempts; injectable so tests can observe backoff without spending it. */
@FunctionalInterface
public interface Sleeper {

    /** The production sleeper: an interruptible {@link Thread#sleep}. */
    Sleeper THREAD_SLEEP = duration -> Thread.sleep(duration.toMillis(), (int) (duration.toNanosPart() % 1_000_000));

    void sleep(Duration duration) throws InterruptedException;
}
