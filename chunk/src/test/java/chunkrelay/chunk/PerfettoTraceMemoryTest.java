package chunkrelay.chunk;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

/**
 * A worst-case Android Perfetto chunk near 50 MiB is processed within a bounded heap: a child JVM with a fixed
 * {@code -Xmx} builds it ({@link PerfettoChunkMemoryProbe}) and processes it. The bound is 5 times the item.
 */
@Tag("external")
class PerfettoTraceMemoryTest {

    @ParameterizedTest(name = "{0} within -Xmx{1}")
    @CsvSource({"samples, 256m", "interned, 256m"})
    void processesAWorstCaseFiftyMebibytePerfettoChunkWithinABoundedHeap(String shape, String heap) throws Exception {
        BoundedHeapRun.assertSucceeds(Duration.ofSeconds(120), heap, PerfettoChunkMemoryProbe.class, shape);
    }
}
