package chunkrelay.chunk;

import chunkrelay.chunk.testing.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worst-case Android ART chunk near 50 MiB is processed within a bounded heap: a child JVM with a fixed
 * {@code -Xmx} builds it ({@link ArtChunkMemoryProbe}) and processes it. The bound is 5 times the item.
 */
@Tag("external")
class AndroidTraceMemoryTest {

    @ParameterizedTest(name = "{0} within -Xmx{1}")
    @CsvSource({"records, 256m", "methods, 256m"})
    void processesAWorstCaseFiftyMebibyteArtChunkWithinABoundedHeap(String shape, String heap) throws Exception {
        ChildJvm.Outcome child = ChildJvm.run(Duration.ofSeconds(120), List.of("-Xmx" + heap),
                ArtChunkMemoryProbe.class, shape);
        System.out.println("child JVM -Xmx" + heap + ": " + child.output().strip());
        assertTrue(child.finished(), "child JVM did not finish in 120 s");
        assertEquals(0, child.exitValue(), child.output());
    }
}
