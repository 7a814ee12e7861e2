package chunkrelay.envelope.upstream;

import chunkrelay.envelope.telemetry.RelayMeter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The envelopes waiting in memory for an upstream sender, bounded by their count and bytes
 * ({@code relay.upstream.queue-envelopes}, {@code relay.upstream.queue-bytes}); what it has no room for goes to the
 * {@link UpstreamSpool}. Both are gauges.
 */
final class UpstreamQueue {
    private final int maxEnvelopes;
    private final long maxBytes;
    private final LinkedBlockingDeque<UpstreamEnvelope> envelopes = new LinkedBlockingDeque<>();
    private final AtomicLong bytes = new AtomicLong();

    UpstreamQueue(UpstreamConfig config, MeterRegistry meters) {
        this.maxEnvelopes = config.queueEnvelopes();
        this.maxBytes = config.queueBytes();
        RelayMeter.UPSTREAM_QUEUE_DEPTH.gauge(meters, envelopes, LinkedBlockingDeque::size);
        RelayMeter.UPSTREAM_QUEUE_BYTES.gauge(meters, bytes, AtomicLong::get);
    }

    /** Queues the envelope last; false, and nothing queued, when it has no room for it. */
    boolean offer(UpstreamEnvelope envelope) {
        if (envelopes.size() >= maxEnvelopes || bytes.get() + envelope.size() > maxBytes) {
            return false;
        }
        bytes.addAndGet(envelope.size());
        envelopes.addLast(envelope);
        return true;
    }

    /** The first envelope, waiting up to {@code millis} for one; null when none came. */
    UpstreamEnvelope poll(long millis) throws InterruptedException {
        UpstreamEnvelope envelope = envelopes.pollFirst(millis, TimeUnit.MILLISECONDS);
        if (envelope != null) {
            bytes.addAndGet(-envelope.size());
        }
        return envelope;
    }

    /** Moves what waits into {@code into}, at shutdown. */
    void drainTo(List<UpstreamEnvelope> into) {
        envelopes.drainTo(into);
    }
}
