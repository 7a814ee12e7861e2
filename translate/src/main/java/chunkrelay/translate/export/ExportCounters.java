package chunkrelay.translate.export;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Monotonic counters and gauges of OTLP forwarding, shared by an exporter and its queue; the application
 * exposes them as metrics. "Requests" are what callers hand in; "attempts" are HTTP requests on the wire.
 */
public final class ExportCounters {
    private final LongAdder attempts = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder partialSuccesses = new LongAdder();
    private final LongAdder rejectedProfiles = new LongAdder();
    private final LongAdder splitRequests = new LongAdder();
    private final ConcurrentHashMap<Integer, LongAdder> finalFailures = new ConcurrentHashMap<>();
    /** Answers by outcome and reason, keys {@code outcome/reason}. */
    private final ConcurrentHashMap<String, LongAdder> answers = new ConcurrentHashMap<>();
    private final LongAdder queueRejections = new LongAdder();
    private final LongAdder queueDropped = new LongAdder();
    private final AtomicLong queueDepth = new AtomicLong();
    private final AtomicLong queueBytes = new AtomicLong();

    /** HTTP attempts sent (first tries and retries). */
    public long attempts() {
        return attempts.sum();
    }

    /** Attempts that followed a retryable failure. */
    public long retries() {
        return retries.sum();
    }

    /** Requests delivered completely (2xx for every part), partial successes included. */
    public long deliveries() {
        return deliveries.sum();
    }

    /** Delivered requests whose response carried a filled {@code partial_success}. */
    public long partialSuccesses() {
        return partialSuccesses.sum();
    }

    /** Sum of {@code partial_success.rejected_profiles}. */
    public long rejectedProfiles() {
        return rejectedProfiles.sum();
    }

    /** Requests over the size limit that were sent in parts. */
    public long splitRequests() {
        return splitRequests.sum();
    }

    /** Requests that failed finally, all statuses together. */
    public long finalFailures() {
        return finalFailures.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /**
     * Final failures by the HTTP status of the last attempt; key {@link DeliveryResult#NO_STATUS} (0) counts
     * failures without a response (connection refused, timeouts, requests that could not be sent).
     */
    public Map<Integer, Long> finalFailuresByStatus() {
        Map<Integer, Long> snapshot = new TreeMap<>();
        finalFailures.forEach((status, count) -> snapshot.put(status, count.sum()));
        return snapshot;
    }

    /** Answers of the endpoint (and requests that could not be sent) with this outcome and reason. */
    public long answers(AnswerOutcome outcome, String reason) {
        LongAdder count = answers.get(outcome.tag() + "/" + reason);
        return count == null ? 0 : count.sum();
    }

    /** {@code offer} calls refused because the queue was full or closed (the caller marks those for replay). */
    public long queueRejections() {
        return queueRejections.sum();
    }

    /** Accepted requests abandoned at shutdown (reported to the listener as dropped). */
    public long queueDropped() {
        return queueDropped.sum();
    }

    /** Requests waiting in the queue now (not counting those a worker is sending). */
    public long queueDepth() {
        return queueDepth.get();
    }

    /** Body bytes of the requests waiting in the queue now. */
    public long queueBytes() {
        return queueBytes.get();
    }

    void attempt() {
        attempts.increment();
    }

    void retry() {
        retries.increment();
    }

    void delivered(DeliveryResult result) {
        deliveries.increment();
        if (result.partialSuccess()) {
            partialSuccesses.increment();
            rejectedProfiles.add(result.rejectedProfiles());
        }
    }

    void answered(AnswerOutcome outcome, String reason) {
        answers.computeIfAbsent(outcome.tag() + "/" + reason, key -> new LongAdder()).increment();
    }

    void finalFailure(int status) {
        finalFailures.computeIfAbsent(status, key -> new LongAdder()).increment();
    }

    void split() {
        splitRequests.increment();
    }

    void queueRejected() {
        queueRejections.increment();
    }

    void droppedAtClose() {
        queueDropped.increment();
    }

    void enqueued(long bytes) {
        queueDepth.incrementAndGet();
        queueBytes.addAndGet(bytes);
    }

    void dequeued(long bytes) {
        queueDepth.decrementAndGet();
        queueBytes.addAndGet(-bytes);
    }
}
