package chunkrelay.envelope;

import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Secondary;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pipeline until chunk processing is wired in: takes every chunk and counts it
 * ({@code relay.chunks.accepted}). Any other {@link ChunkPipeline} bean replaces it.
 */
@Singleton
@Secondary
public class CountingChunkPipeline implements ChunkPipeline {
    private final AtomicLong accepted = new AtomicLong();
    private final MeterRegistry meters;

    public CountingChunkPipeline(MeterRegistry meters) {
        this.meters = meters;
    }

    @Override
    public void accept(List<ProfileChunkItem> chunks) {
        for (ProfileChunkItem chunk : chunks) {
            meters.counter("relay.chunks.accepted", "item_type", chunk.itemType()).increment();
            accepted.incrementAndGet();
        }
    }

    public long accepted() {
        return accepted.get();
    }
}
