package chunkrelay.chunk;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 50 MiB chunk parses and normalises within a heap of 4 times its size: a child JVM with
 * {@code -Xmx200m} builds the synthetic chunk ({@link SyntheticChunkParse}) and processes it.
 */
class ChunkMemoryTest {
    private static final String HEAP = "-Xmx200m";

    @Test
    void parsesAFiftyMebibyteChunkWithinFourTimesItsSizeOfHeap() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = List.of(java, HEAP, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                SyntheticChunkParse.class.getName(), Long.toString(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean finished = child.waitFor(60, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println("child JVM " + HEAP + ": " + output.strip());
        assertTrue(finished, "child JVM did not finish in 60 s");
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("accepted"), output);
    }
}
