package chunkrelay.chunk;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worst-case Android Perfetto chunk near 50 MiB is processed within a bounded heap: a child JVM with a fixed
 * {@code -Xmx} builds it ({@link PerfettoChunkMemoryProbe}) and processes it. The bound is 5 times the item.
 */
@Tag("external")
class PerfettoTraceMemoryTest {

    @ParameterizedTest(name = "{0} within -Xmx{1}")
    @CsvSource({"samples, 256m", "interned, 256m"})
    void processesAWorstCaseFiftyMebibytePerfettoChunkWithinABoundedHeap(String shape, String heap) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = List.of(java, "-Xmx" + heap, "-cp", System.getProperty("java.class.path"),
                PerfettoChunkMemoryProbe.class.getName(), shape);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean finished = child.waitFor(120, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println("child JVM -Xmx" + heap + ": " + output.strip());
        assertTrue(finished, "child JVM did not finish in 120 s");
        assertEquals(0, child.exitValue(), output);
    }
}
