package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    private final long retryAfterSeconds;

    public IngestWorkers(RelayLimits limits) {
        int threads = limits.workerThreads();
        this.queueCapacity = Math.max(1, limits.workerQueue());
        this.retryAfterSeconds = limits.retryAfterSeconds();
        AtomicInteger counter = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity), runnable -> {
                    Thread thread = new Thread(runnable, "ingest-worker-" + counter.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ingest-read-timeouts");
            thread.setDaemon(true);
            return thread;
        });
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
        return RelayError.cannotQueue("the relay has too many envelopes waiting; retry later", retryAfterSeconds);
    }

    public int queued() {
        return executor.getQueue().size();
    }

    @PreDestroy
    void stop() throws InterruptedException {
        timer.shutdownNow();
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
    }
}
