package chunkrelay.envelope.sdk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one step of an SDK run (install, check, run) as a child process with a timeout, its stdout and stderr in
 * files under the run's log directory, and fails with an {@link AssertionError} that names the SDK, the step and
 * where the logs are.
 */
public final class SdkProcess {

    private static final int TAIL_LINES = 40;

    private SdkProcess() {
    }

    /** What a finished step left: how long it took and where its output went. */
    public record StepResult(String sdk, String step, Duration elapsed, Path stdout, Path stderr) {

        public String stdoutText() {
            return read(stdout);
        }

        public String stderrText() {
            return read(stderr);
        }
    }

    public static StepResult run(String sdk, String step, List<String> command, Path workDir,
                                 Map<String, String> environment, Duration timeout, Path logDir) {
        String label = sdk + "-" + step.replaceAll("[^A-Za-z0-9]+", "-");
        Path stdout = logDir.resolve(label + ".stdout.log");
        Path stderr = logDir.resolve(label + ".stderr.log");
        long started = System.nanoTime();
        Process process;
        try {
            Files.createDirectories(logDir);
            Files.createDirectories(workDir);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            // Inherited SENTRY_* variables (release, sample rates, DSN) would change what the SDKs send.
            builder.environment().keySet().removeIf(name -> name.startsWith("SENTRY_"));
            builder.environment().putAll(environment);
            process = builder.start();
        } catch (IOException e) {
            throw new AssertionError(sdk + " SDK, step '" + step + "': could not start " + command.get(0)
                    + " (" + e.getMessage() + "); is it installed and on PATH?", e);
        }
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(sdk + " SDK, step '" + step + "': still running after " + timeout.toSeconds()
                        + " s, killed. " + logHint(stdout, stderr));
            }
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new AssertionError(sdk + " SDK, step '" + step + "': interrupted", e);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        if (process.exitValue() != 0) {
            throw new AssertionError(sdk + " SDK, step '" + step + "': " + String.join(" ", command)
                    + " exited with " + process.exitValue() + ". " + logHint(stdout, stderr));
        }
        return new StepResult(sdk, step, elapsed, stdout, stderr);
    }

    private static String logHint(Path stdout, Path stderr) {
        return "Logs: " + stdout + " and " + stderr + "\n--- stderr (tail) ---\n" + tail(stderr)
                + "\n--- stdout (tail) ---\n" + tail(stdout);
    }

    private static String tail(Path file) {
        List<String> lines = read(file).lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
