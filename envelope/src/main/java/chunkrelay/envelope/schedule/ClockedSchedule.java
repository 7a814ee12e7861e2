package chunkrelay.envelope.schedule;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Periodic jobs due on the relay's {@link Clock}, not on real time: one daemon thread looks every {@link #POLL} of
 * real time whether the clock has reached a job's next run, runs it, and makes it due again {@code interval} after
 * it ended (a fixed delay, on the clock). So a test on a test clock moves the clock and sees the job run within a
 * poll, or calls {@link #runDue} itself; a clock that jumps ahead runs a job once, not once per interval skipped.
 * {@link BackgroundWork#schedule} makes one, and the thread runs nothing while {@link BackgroundWork#hold} holds it.
 * Thread-safe.
 */
public final class ClockedSchedule {
    private static final Logger LOG = LoggerFactory.getLogger(ClockedSchedule.class);
    /** How often the thread reads the clock: short, as a read costs nothing and a test waits at most this long. */
    public static final Duration POLL = Duration.ofMillis(50);

    private final Clock clock;
    private final String name;
    private final List<Job> jobs = new CopyOnWriteArrayList<>();
    private final AtomicBoolean polling = new AtomicBoolean();
    private final ScheduledExecutorService thread;
    private final BooleanSupplier held;

    private static final class Job {
        private final Duration interval;
        private final Runnable work;
        private Instant next;

        private Job(Duration interval, Instant next, Runnable work) {
            this.interval = interval;
            this.next = next;
            this.work = work;
        }
    }

    /**
     * @param name   the thread's name, as the jobs' logs show it
     * @param thread one thread, started at the first job
     * @param held   whether the thread is to run nothing for now
     */
    ClockedSchedule(String name, Clock clock, ScheduledExecutorService thread, BooleanSupplier held) {
        this.clock = clock;
        this.name = name;
        this.thread = thread;
        this.held = held;
    }

    /** Runs {@code work} first {@code first} after now on the clock, then {@code interval} after each run ends. */
    public void every(Duration interval, Duration first, Runnable work) {
        jobs.add(new Job(interval, clock.instant().plus(first), work));
        if (polling.compareAndSet(false, true)) {
            thread.scheduleWithFixedDelay(this::runDueQuietly, POLL.toMillis(), POLL.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Runs, in the calling thread, the jobs the clock has reached, in the order added; one caller at a time, so a
     * caller that returns sees the jobs due by then done, by it or by the thread.
     */
    public synchronized void runDue() {
        for (Job job : jobs) {
            if (!clock.instant().isBefore(job.next)) {
                try {
                    job.work.run();
                } finally {
                    job.next = clock.instant().plus(job.interval);
                }
            }
        }
    }

    private void runDueQuietly() {
        if (held.getAsBoolean()) {
            return;
        }
        try {
            runDue();
        } catch (RuntimeException e) {
            // the jobs handle their own failures; this keeps the thread alive for their next run
            LOG.error("background job on {} failed", name, e);
        }
    }

    /** Lets a job under way finish (it is not interrupted) and runs no other. */
    public void stop(Duration wait) throws InterruptedException {
        thread.shutdown();
        thread.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Interrupts a job under way and runs no other. */
    public void stopNow(Duration wait) throws InterruptedException {
        thread.shutdownNow();
        thread.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    }
}
