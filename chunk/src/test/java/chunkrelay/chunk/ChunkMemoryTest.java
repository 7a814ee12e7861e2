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
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = List.of(java, "-Xmx" + heap, "-cp",
                System.getProperty("java.class.path"), SyntheticChunkParse.class.getName(),
                Long.toString(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES), shape);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean finished = child.waitFor(60, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println("child JVM -Xmx" + heap + ": " + output.strip());
        assertTrue(finished, "child JVM did not finish in 60 s");
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("accepted"), output);
    }
}
