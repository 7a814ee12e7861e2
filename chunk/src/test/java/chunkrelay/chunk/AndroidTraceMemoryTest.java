package chunkrelay.chunk;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

/**
 * A worst-case Android ART chunk near 50 MiB is processed within a bounded heap: a child JVM with a fixed
 * {@code -Xmx} builds it ({@link ArtChunkMemoryProbe}) and processes it. The bound is 5 times the item.
 */
@Tag("external")
class AndroidTraceMemoryTest {

    @ParameterizedTest(name = "{0} within -Xmx{1}")
    @CsvSource({"records, 256m", "methods, 256m"})
    void processesAWorstCaseFiftyMebibyteArtChunkWithinABoundedHeap(String shape, String heap) throws Exception {
        BoundedHeapRun.assertSucceeds(Duration.ofSeconds(120), heap, ArtChunkMemoryProbe.class, shape);
    }
}
