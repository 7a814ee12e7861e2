package chunkrelay.translate.export;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Forwards requests off the ingest path: a bounded queue (by count and by body bytes) drained by a small pool
 * of worker threads (made by the caller's {@link ThreadFactory}, so that the application names and owns every thread),
 * each delivering through the shared {@link OtlpHttpExporter}. {@link #offer} never waits:
 * when the queue is full it returns false and the caller marks the request for replay. Every accepted request
 * ends in exactly one {@link DeliveryListener} call.
 */
public final class ForwardingQueue implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ForwardingQueue.class.getName());
    /** Queued once per worker at close, behind the real requests, to let each worker finish. */
    private static final ForwardRequest STOP = new ForwardRequest("", new byte[0]);
    /** After the deadline, how long interrupted workers get to report their in-flight requests. */
    private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(5);

    private final OtlpHttpExporter exporter;
    private final DeliveryListener listener;
    private final ExportCounters counters;
    private final int capacity;
    private final long maxBytes;
    private final Duration drainTimeout;
    // unbounded internally so the STOP markers always fit; offer() enforces the configured bounds
    private final LinkedBlockingQueue<ForwardRequest> queue = new LinkedBlockingQueue<>();
    private final List<Thread> workers = new ArrayList<>();
    private final Object offerLock = new Object();
    private long queuedBytes;
    private boolean closed;

    /** Starts {@code workers} threads; capacity, byte bound and drain timeout come from the exporter's settings. */
    public ForwardingQueue(OtlpHttpExporter exporter, DeliveryListener listener, ThreadFactory threads) {
        OtlpExportSettings settings = exporter.settings();
        this.exporter = exporter;
        this.listener = listener;
        this.counters = exporter.counters();
        this.capacity = settings.queueCapacity();
        this.maxBytes = settings.queueMaxBytes();
        this.drainTimeout = settings.drainTimeout();
        for (int i = 0; i < settings.workers(); i++) {
            Thread worker = threads.newThread(this::work);
            workers.add(worker);
            worker.start();
        }
    }

    /**
     * Queues a request without waiting. False when the queue holds {@code queueCapacity} requests, when adding
     * the body would pass {@code queueMaxBytes} (a single request larger than that is accepted into an empty
     * queue), or when the queue is closed: the caller keeps the request for replay.
     */
    public boolean offer(ForwardRequest request) {
        synchronized (offerLock) {
            boolean full = queue.size() >= capacity
                    || !queue.isEmpty() && queuedBytes + request.body().length > maxBytes;
            if (closed || full) {
                counters.queueRejected();
                return false;
            }
            queue.add(request);
            queuedBytes += request.body().length;
            counters.enqueued(request.body().length);
            return true;
        }
    }

    /** Requests waiting, not counting those being sent. */
    public int size() {
        return queue.size();
    }

    /** {@link #close(Duration)} with the configured {@code drainTimeout}. */
    @Override
    public void close() {
        close(drainTimeout);
    }

    /**
     * Refuses new requests and lets the workers deliver what is queued until {@code deadline}; then interrupts
     * them and reports every request not finished by then to {@link DeliveryListener#dropped}. Returns true when
     * the queue drained in time (each accepted request was reported delivered or failed).
     */
    public boolean close(Duration deadline) {
        synchronized (offerLock) {
            if (closed) {
                return true;
            }
            closed = true;
            workers.forEach(worker -> queue.add(STOP));
        }
        long until = System.nanoTime() + deadline.toNanos();
        boolean drained = joinAll(until);
        if (!drained) {
            workers.forEach(Thread::interrupt);
            joinAll(System.nanoTime() + INTERRUPT_GRACE.toNanos());
        }
        List<ForwardRequest> left = new ArrayList<>();
        queue.drainTo(left);
        for (ForwardRequest request : left) {
            if (request != STOP) {
                dequeued(request);
                drop(request, "not sent before the forwarding queue closed");
                drained = false;
            }
        }
        if (!drained) {
            LOG.log(Level.WARNING, "OTLP forwarding queue closed with undelivered requests; they are marked for replay");
        }
        return drained;
    }

    private boolean joinAll(long untilNanos) {
        for (Thread worker : workers) {
            long left = untilNanos - System.nanoTime();
            try {
                if (left > 0) {
                    worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (worker.isAlive()) {
                return false;
            }
        }
        return true;
    }

    private void work() {
        while (true) {
            ForwardRequest request;
            try {
                request = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (request == STOP) {
                return;
            }
            dequeued(request);
            try {
                DeliveryResult result = exporter.export(request.body());
                notify(request, result);
            } catch (InterruptedException e) {
                drop(request, "interrupted while sending at shutdown; the endpoint may or may not have it");
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "OTLP export of " + request.key() + " failed unexpectedly", e);
                counters.finalFailure(DeliveryResult.NO_STATUS);
                notify(request, DeliveryResult.gaveUp(0, 0, DeliveryResult.NO_STATUS, "unexpected error: " + e));
            }
        }
    }

    private void dequeued(ForwardRequest request) {
        synchronized (offerLock) {
            queuedBytes -= request.body().length;
        }
        counters.dequeued(request.body().length);
    }

    private void notify(ForwardRequest request, DeliveryResult result) {
        try {
            if (result.delivered()) {
                listener.delivered(request.key(), result);
            } else {
                listener.failed(request.key(), result);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Delivery listener failed for " + request.key(), e);
        }
    }

    private void drop(ForwardRequest request, String reason) {
        counters.droppedAtClose();
        try {
            listener.dropped(request.key(), reason);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "Delivery listener failed for " + request.key(), e);
        }
    }
}
