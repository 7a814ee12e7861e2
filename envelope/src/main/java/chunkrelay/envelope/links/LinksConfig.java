package chunkrelay.envelope.links;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * Trace links, {@code relay.links.*}.
 *
 * @param window            how long after receipt a chunk's OTLP form is derived, so that spans sent after the
 *                          chunk (a transaction is sent when it ends) still link; {@code 0} derives it at once,
 *                          before the answer, with the spans this relay knows by then
 * @param maxSpans          spans held in the index at most (all profilers together)
 * @param maxAge            how long a span is held after it ended, and how long a v2 child waits for its segment
 * @param maxPendingBytes   bytes of chunks held in memory while they wait for their window (0: a quarter of the
 *                          heap); beyond it a chunk is read back from the archive when its window ends
 * @param maxPendingObjectBytes of those, bytes of chunks held as OTLP objects, which link without being decompressed
 *                          and parsed again (0: a sixteenth of the heap); beyond it a chunk waits as compressed bytes
 * @param recoveryInterval  how often a relay rewrites its heartbeat and looks for dead relays, whose underived
 *                          chunks it then searches the archive for
 * @param derivationThreads threads that derive OTLP forms after their window (0: half the cores, at least one)
 * @param spanLog           whether spans are also appended to the span log in the bucket (for other replicas,
 *                          restarts and replay)
 */
@ConfigurationProperties("relay.links")
public record LinksConfig(@Bindable(defaultValue = "30s") Duration window,
                          @Bindable(defaultValue = "100000") long maxSpans,
                          @Bindable(defaultValue = "10m") Duration maxAge,
                          @Bindable(defaultValue = "0") long maxPendingBytes,
                          @Bindable(defaultValue = "0") long maxPendingObjectBytes,
                          @Bindable(defaultValue = "60s") Duration recoveryInterval,
                          @Bindable(defaultValue = "0") int derivationThreads,
                          @Bindable(defaultValue = "true") boolean spanLog) {

    public boolean deferred() {
        return !window.isZero() && !window.isNegative();
    }

    /**
     * A quarter of the heap by default: what a 30 s window at full load holds, with room to spare. On 2 cores the
     * recorded Java chunk arrives at about 90 a second and waits as 34 KB, so a window holds about 92 MB, 15% of the
     * shipped container's 600 MiB heap; at a tenth a third of them were read back, each parsed a second time.
     */
    public long pendingBytesLimit() {
        return maxPendingBytes > 0 ? maxPendingBytes : Runtime.getRuntime().maxMemory() / 4;
    }

    /**
     * A sixteenth of the heap by default: 37.5 MiB of the shipped container's 600 MiB, about 110 recorded Java chunks
     * (300 KB each as objects, against 32 KB as compressed bytes), 140 Node or 420 Python ones; linking one of them
     * costs 12 to 24% less CPU ({@code docs/performance.md}, waiting chunks).
     */
    public long pendingObjectBytesLimit() {
        return maxPendingObjectBytes > 0 ? maxPendingObjectBytes : Runtime.getRuntime().maxMemory() / 16;
    }

    public int threads() {
        return derivationThreads > 0 ? derivationThreads : Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }
}
