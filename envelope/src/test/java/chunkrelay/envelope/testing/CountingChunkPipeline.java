package chunkrelay.envelope.testing;

import chunkrelay.envelope.pipeline.ChunkPipeline;
import chunkrelay.envelope.pipeline.ProfileChunkItem;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * For tests of the envelope layer alone (auth, encodings, wire format, limits): takes every chunk and counts it,
 * in place of the archiving pipeline. A test class opts in with {@code @Property(name = "test.pipeline",
 * value = "counting")}.
 */
@Singleton
@Replaces(ChunkPipeline.class)
@Requires(property = "test.pipeline", value = "counting")
public class CountingChunkPipeline implements ChunkPipeline {
    private final AtomicLong accepted = new AtomicLong();

    @Override
    public void accept(List<ProfileChunkItem> chunks) {
        accepted.addAndGet(chunks.size());
    }

    public long accepted() {
        return accepted.get();
    }
}
