package chunkrelay.envelope.schedule;

import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.event.ShutdownEvent;
import io.micronaut.core.order.Ordered;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place the relay makes its threads, each a daemon named for its work, and the one order they stop in; the
 * clients the relay sends with (HTTP, Redis, the bucket's) are closed in that order too, last, and its caches do
 * their upkeep on the caller ({@link #cacheMaintenance}). Their owners start them when the server has started (the
 * periodic jobs of {@link #schedule}, the upstream senders, the derivations' hand-out; a command line's derivations
 * when a chunk first waits), the forwarding queue's workers when it is made, and the pools of ingest, the views'
 * readers, the pass-through requests and the HTTP clients as their work comes. At the context's shutdown
 * (after the server's graceful shutdown let requests in flight finish) the owners' stop steps run by
 * {@link Stage}, in the order they were registered within a stage, all within one budget,
 * {@code relay.shutdown.budget}: each step waits at most what is left of it, and every step runs, so that what
 * only memory holds is handed on (spooled, marked for replay, left to a peer) even when the budget is spent.
 *
 * <p>A test on a test clock holds the background work ({@link #hold}): the schedules' threads and the derivations'
 * hand-out then run nothing when the clock moves, and the test drives the jobs itself ({@code runDue}).
 */
@Singleton
public class BackgroundWork implements ApplicationEventListener<ShutdownEvent>, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundWork.class);

    /** The stop order: what feeds a stage stops before it, so that nothing acknowledged is left only in memory. */
    public enum Stage {
        /**
         * Ingest: no new envelope is taken; those in the workers finish, their chunks archived. The pass-through
         * requests' threads end.
         */
        INTAKE,
        /** The upstream Sentry's queue, fed by ingest alone: spooled, as only memory holds it. */
        UPSTREAM,
        /** Chunks inside their link window: derived now, or left to a peer by this relay's heartbeat. */
        DERIVATION,
        /** The OTLP forwarding queue, fed by derivation: drained, the rest marked for replay. */
        FORWARDING,
        /** Periodic jobs (retention, rollups, recovery pass): interrupted, they pick up where they stopped. */
        PERIODIC,
        /** The views' readers, whose requests the server's graceful shutdown let finish. */
        READS,
        /**
         * The clients every stage above sends with (the HTTP clients' threads, Redis's event loops, the bucket's SDK
         * client and connection pool): closed once nothing uses them.
         */
        CLIENTS
    }

    /** An owner's part of the shutdown; {@code left} is what remains of the budget, zero when it is spent. */
    @FunctionalInterface
    public interface StopStep {
        void stop(Duration left) throws InterruptedException;
    }

    private record Step(Stage stage, String what, StopStep step) {
    }

    private final Clock clock;
    private final Duration budget;
    private final AtomicBoolean held = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final List<Step> steps = new CopyOnWriteArrayList<>();

    /** @param budget how long the stop steps may take together */
    public BackgroundWork(Clock clock, @Value("${relay.shutdown.budget:30s}") Duration budget) {
        this.clock = clock;
        this.budget = budget;
    }

    /** Starts one thread. */
    public Thread start(String name, Runnable body) {
        Thread thread = daemon(body, name);
        thread.start();
        return thread;
    }

    /** Threads named {@code name-1}, {@code name-2}, ... for work the caller runs and stops itself. */
    public ThreadFactory threads(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> daemon(runnable, name + "-" + count.incrementAndGet());
    }

    /** A fixed pool of {@code threads} threads ({@link #threads} names them) over {@code queue}. */
    public ThreadPoolExecutor pool(String name, int threads, BlockingQueue<Runnable> queue) {
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, queue, threads(name));
    }

    /** A pool that also runs work after a delay or at a fixed rate; every thread is named {@code name}. */
    public ScheduledThreadPoolExecutor timer(String name, int threads) {
        return new ScheduledThreadPoolExecutor(threads, runnable -> daemon(runnable, name));
    }

    /**
     * The threads of an HTTP client (its executor): at most {@code threads}, named {@code name-N}, started as its
     * exchanges need them and ended after a minute idle, so that a relay at rest keeps none; shut down in
     * {@link Stage#CLIENTS}. The JDK client's own selector thread ({@code HttpClient-N-SelectorManager}) cannot be
     * named or stopped: it ends once the client is no longer reachable, that is when the context that holds it is
     * closed and the garbage collector has run.
     */
    public ExecutorService clientThreads(String name, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(), threads(name));
        pool.allowCoreThreadTimeOut(true);
        atStop(Stage.CLIENTS, name, left -> {
            pool.shutdownNow();
            pool.awaitTermination(left.toNanos(), TimeUnit.NANOSECONDS);
        });
        return pool;
    }

    /**
     * The threads that do the blocking part of requests of one kind: at most {@code threads}, named {@code name-N},
     * started as requests come and ended after a minute idle. Nothing waits for one: work given when all are busy is
     * rejected ({@link java.util.concurrent.RejectedExecutionException}), so that however many clients come, and
     * however slowly they send, they hold no more threads than this; the caller refuses the request. Shut down in
     * {@link Stage#INTAKE}, after the server's graceful shutdown let the requests in flight finish.
     */
    public ExecutorService requestThreads(String name, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, threads, 1, TimeUnit.MINUTES, new SynchronousQueue<>(),
                threads(name));
        atStop(Stage.INTAKE, name, left -> {
            pool.shutdownNow();
            pool.awaitTermination(left.toNanos(), TimeUnit.NANOSECONDS);
        });
        return pool;
    }

    /**
     * Where the relay's Caffeine caches do their upkeep (draining their buffers, evicting, expiring): on the thread
     * that used the cache, a little at each call, instead of on the JVM's common pool, which nothing of the relay
     * owns. None of the caches has a removal listener, so the upkeep is only Caffeine's own bounded work.
     */
    public static Executor cacheMaintenance() {
        return Runnable::run;
    }

    /**
     * Periodic jobs on the clock, on a thread named {@code name} started at the first job; held by {@link #hold},
     * stopped in {@link Stage#PERIODIC}, a job under way interrupted. An owner with more to do at stop registers it
     * in that stage after calling this, so that it runs once the jobs are stopped.
     */
    public ClockedSchedule schedule(String name) {
        ClockedSchedule schedule = new ClockedSchedule(name, clock, timer(name, 1), held::get);
        atStop(Stage.PERIODIC, name, schedule::stopNow);
        return schedule;
    }

    /** Registers {@code step} to run at shutdown in {@code stage}, after the steps registered before it there. */
    public void atStop(Stage stage, String what, StopStep step) {
        steps.add(new Step(stage, what, step));
    }

    /** From now on the schedules' threads and the derivations' hand-out run nothing; tests drive the jobs. */
    public void hold() {
        held.set(true);
    }

    /** Lets the threads run what is due again. */
    public void resume() {
        held.set(false);
    }

    /** Whether {@link #hold} holds the background work. */
    public boolean held() {
        return held.get();
    }

    @Override
    public void onApplicationEvent(ShutdownEvent event) {
        stop();
    }

    /**
     * Right after Micronaut's graceful shutdown (a listener of the highest precedence, which lets requests in flight
     * finish), before any other listener, and before the context destroys the beans the steps use.
     */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1;
    }

    /**
     * Runs the stop steps once, in order, within the budget. The budget is real time, not the clock's: it bounds
     * waits for threads, and a test clock standing still must not hold a stop for ever.
     */
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + budget.toNanos();
        for (Step step : steps.stream().sorted(Comparator.comparing(Step::stage)).toList()) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                step.step().stop(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("stopping {} was interrupted", step.what());
            } catch (RuntimeException e) {
                LOG.error("stopping {} failed", step.what(), e);
            }
            LOG.debug("stopped {} ({} of the budget left)", step.what(), left);
        }
        if (System.nanoTime() > deadline) {
            LOG.warn("stopping the background work took longer than relay.shutdown.budget ({})", budget);
        }
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }
}
