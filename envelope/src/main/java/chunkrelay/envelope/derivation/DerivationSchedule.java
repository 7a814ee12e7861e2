package chunkrelay.envelope.derivation;

import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.DueWork;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When derivation work runs: windows, retries and recovery rounds are kept by the time of the injected clock
 * ({@link DueWork}); a scheduler thread hands out what is due every {@value #TICK_MILLIS} ms to the derivation
 * threads ({@code relay.links.derivation-threads}), and a test on a test clock calls {@link #runDue}.
 */
@Singleton
public class DerivationSchedule {
    static final long TICK_MILLIS = 100;

    private final DueWork due;
    private final BackgroundWork work;
    private final ScheduledThreadPoolExecutor scheduler;
    private final AtomicBoolean handingOut = new AtomicBoolean();

    public DerivationSchedule(LinksConfig config, Clock clock, BackgroundWork work) {
        this.due = new DueWork(clock);
        this.work = work;
        this.scheduler = work.timer("chunk-derivation", config.threads());
    }

    public void at(Instant when, Runnable work) {
        due.at(when, work);
    }

    public void after(Duration delay, Runnable work) {
        due.after(delay, work);
    }

    /**
     * Starts handing out due work, once: at the server's start, or when a chunk first waits, for its
     * window or for a retry (so that a command line, which never holds a chunk in its window, starts no thread unless
     * a derivation fails).
     */
    public void start() {
        if (handingOut.compareAndSet(false, true)) {
            scheduler.scheduleWithFixedDelay(this::handOutDue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Runs, in the calling thread, the windows, retries and recovery rounds the clock has reached. */
    public void runDue() {
        due.takeDue().forEach(Runnable::run);
    }

    /** The scheduler thread's part: what is due runs on the pool, so that windows ending together derive together. */
    private void handOutDue() {
        if (work.held()) {
            return;
        }
        try {
            due.takeDue().forEach(scheduler::execute);
        } catch (RejectedExecutionException e) {
            // stopping: the derivations' stop derives what still waits
        }
    }

    /** Stops handing out; what is running is interrupted. */
    void stop() {
        scheduler.shutdownNow();
    }
}
