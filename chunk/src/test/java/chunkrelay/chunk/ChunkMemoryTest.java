package chunkrelay.chunk;

import chunkrelay.chunk.testing.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 50 MiB chunk parses and normalises within a bounded heap: a child JVM with a fixed {@code -Xmx}
 * builds a synthetic chunk of exactly {@link ChunkProcessor#DEFAULT_MAX_CHUNK_BYTES} bytes
 * ({@link SyntheticChunkParse}) and processes it, with the JVM's default collector. A realistic chunk
 * and the two shapes that cost the most memory per payload byte (bare stack indices, empty frames)
 * all fit in 4 times the payload ({@code -Xmx200m}).
 */
@Tag("external")
class ChunkMemoryTest {

    @ParameterizedTest(name = "{0} within -Xmx{1}")
    @CsvSource({"realistic, 200m", "stack-indices, 200m", "empty-frames, 200m"})
    void parsesAFiftyMebibyteChunkWithinABoundedHeap(String shape, String heap) throws Exception {
        ChildJvm.Outcome child = BoundedHeapRun.assertSucceeds(Duration.ofSeconds(60), heap, SyntheticChunkParse.class,
                Long.toString(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES), shape);
        assertTrue(child.output().contains("accepted"), child.output());
    }
}
