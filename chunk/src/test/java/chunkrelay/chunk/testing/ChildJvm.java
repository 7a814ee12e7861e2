package chunkrelay.chunk.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own on this JVM's class path, for what must not share the test's JVM: a heap bound of its own (the
 * memory tests), a relay or command line run as in production.
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /** The output and exit of a child run to its end, or stopped at its timeout. */
    public record Outcome(boolean finished, int exitValue, String output) {
    }

    /** The command line running {@code main} with {@code jvmOptions} (e.g. {@code -Xmx256m}, {@code -Dkey=value}). */
    public static List<String> command(List<String> jvmOptions, Class<?> main, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(arguments));
        return command;
    }

    /**
     * Runs the child, its standard error merged into its output, until it exits or {@code timeout} passes (then it is
     * killed and {@link Outcome#finished} is false).
     */
    public static Outcome run(Duration timeout, List<String> jvmOptions, Class<?> main, String... arguments)
            throws IOException, InterruptedException {
        Process child = new ProcessBuilder(command(jvmOptions, main, arguments)).redirectErrorStream(true).start();
        boolean finished = child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Outcome(finished, finished ? child.exitValue() : -1, output);
    }
}
