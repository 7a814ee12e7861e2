package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RetryLater;
import chunkrelay.envelope.schedule.BackgroundWork;

import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The fixed pool that processes complete envelopes: as many threads as cores (configurable) and a bounded queue,
 * so the relay's thread count does not grow with its clients. A full queue is a 503 the SDK retries.
 */
@Singleton
public class IngestWorkers {
    private final ThreadPoolExecutor executor;
    private final ScheduledExecutorService timer;
    private final int queueCapacity;
    private final RetryLater retryLater;

    public IngestWorkers(RelayLimits limits, RetryLater retryLater, BackgroundWork work) {
        int threads = limits.workerThreads();
        this.queueCapacity = Math.max(1, limits.workerQueue());
        this.retryLater = retryLater;
        this.executor = work.pool("ingest-worker", threads, new ArrayBlockingQueue<>(queueCapacity));
        this.timer = work.timer("ingest-read-timeouts", 1);
        work.atStop(BackgroundWork.Stage.INTAKE, "ingest workers", this::stop);
    }

    /** The one thread that checks the read timeouts of bodies being received. */
    ScheduledExecutorService timer() {
        return timer;
    }

    /** Whether a new request may start buffering its body: refused early rather than after it was read. */
    public boolean hasRoom() {
        return executor.getQueue().size() < queueCapacity;
    }

    /** Runs the work on a worker; a full queue completes the result with a 503 instead. */
    public <T> CompletableFuture<T> submit(Supplier<T> work) {
        try {
            return CompletableFuture.supplyAsync(work, executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(busy());
        }
    }

    /** The 503 for a relay that has more envelopes waiting than it will queue. */
    public RelayError busy() {
        return retryLater.cannotQueue("the relay has too many envelopes waiting; retry later");
    }

    public int queued() {
        return executor.getQueue().size();
    }

    /** Takes no new envelope and lets those queued finish, their chunks archived, within what is {@code left}. */
    private void stop(Duration left) throws InterruptedException {
        timer.shutdownNow();
        executor.shutdown();
        executor.awaitTermination(left.toMillis(), TimeUnit.MILLISECONDS);
    }
}
