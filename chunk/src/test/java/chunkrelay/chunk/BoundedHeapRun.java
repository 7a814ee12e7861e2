package chunkrelay.chunk;

import chunkrelay.chunk.testing.ChildJvm;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A probe run in a child JVM with a fixed {@code -Xmx}, so that the heap it is held to is its own alone. */
final class BoundedHeapRun {
    private BoundedHeapRun() {
    }

    /**
     * Runs {@code main} with {@code arguments} in a child JVM with {@code -Xmx<heap>}, prints what it wrote, and
     * asserts that it finished within {@code timeout} and exited 0.
     *
     * @return the child's outcome, for what else its output must say
     */
    static ChildJvm.Outcome assertSucceeds(Duration timeout, String heap, Class<?> main, String... arguments)
            throws IOException, InterruptedException {
        ChildJvm.Outcome child = ChildJvm.run(timeout, List.of("-Xmx" + heap), main, arguments);
        System.out.println("child JVM -Xmx" + heap + ": " + child.output().strip());
        assertTrue(child.finished(), "child JVM did not finish in " + timeout.toSeconds() + " s");
        assertEquals(0, child.exitValue(), child.output());
        return child;
    }
}
