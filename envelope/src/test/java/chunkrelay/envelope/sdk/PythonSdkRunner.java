package chunkrelay.envelope.sdk;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code sentry-sdk} 2.75.0 (pinned with its dependencies in {@code sdk-e2e/python/requirements.txt}), installed from
 * PyPI into a virtual environment the test owns, then run as {@code python driver.py <lifecycle>} with continuous
 * profiling in the {@code trace} or the {@code manual} lifecycle over the workload of
 * {@code chunk_relay_workload.py}.
 *
 * <p>The virtual environment is made with the first {@code python3} that has {@code venv} and {@code ensurepip}
 * (Debian ships them apart, in {@code python3-venv}, which {@code .ci/run} installs when missing), and kept between
 * runs ({@link SdkInstall}) until requirements.txt or the interpreter changes.
 */
public final class PythonSdkRunner implements SdkRunner {

    /** The workload's span functions as Python names them ({@code module.qualname}), each run in a span so named. */
    static final List<String> SPAN_FUNCTIONS = List.of("chunk_relay_workload.Inventory.restock",
            "chunk_relay_workload.Inventory.count_stock", "chunk_relay_workload.crunch_primes",
            "chunk_relay_workload.fibonacci_batch", "chunk_relay_workload.Inventory.await_delivery");
    /** The main thread's functions as sentry-sdk writes a frame's {@code function}: the qualified name alone. */
    static final List<String> BUSY_FUNCTIONS = List.of("Inventory.restock", "Inventory.count_stock");
    private static final String RESOURCES = "/sdk-e2e/python/";
    private static final List<String> FILES = List.of("requirements.txt", "driver.py", "chunk_relay_workload.py",
            "silent_sessions.py");
    private static final List<String> INTERPRETERS = List.of("python3", "/usr/bin/python3");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration VENV_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

    private final Path installDir;
    private final Path logDir;
    private final Duration busyWork;
    private final String lifecycle;

    /**
     * @param installDir where the driver is copied and the virtual environment made (kept between runs)
     * @param logDir     where each step's stdout and stderr go
     * @param busyWork   how long the driver runs its profiled work
     * @param lifecycle  {@code trace} or {@code manual}
     */
    public PythonSdkRunner(Path installDir, Path logDir, Duration busyWork, String lifecycle) {
        if (!lifecycle.equals("trace") && !lifecycle.equals("manual")) {
            throw new IllegalArgumentException("lifecycle is trace or manual, not " + lifecycle);
        }
        this.installDir = installDir;
        this.logDir = logDir;
        this.busyWork = busyWork;
        this.lifecycle = lifecycle;
    }

    @Override
    public String sdk() {
        return "python-" + lifecycle;
    }

    @Override
    public ExpectedProfile expectedProfile() {
        // threads that ended before the chunk was sent have no thread_metadata, so the busy thread is the main one
        return new ExpectedProfile(sdk(), "python", "sentry.python", BUSY_FUNCTIONS,
                new ExpectedProfile.ThreadName("MainThread"));
    }

    @Override
    public Run run(RelayTarget target) {
        return run(target, List.of("driver.py", lifecycle), Map.of("CHUNK_RELAY_SENTRY_DEBUG", "1"));
    }

    /**
     * Runs another script of {@code sdk-e2e/python} (its arguments after it) in the same virtual environment, with
     * {@code SENTRY_DSN} and {@code CHUNK_RELAY_BUSY_MILLIS} set as for the driver and {@code env} added.
     */
    public Run run(RelayTarget target, List<String> script, Map<String, String> env) {
        List<SdkProcess.StepResult> steps = new ArrayList<>();
        String python = interpreter();
        SdkInstall install = new SdkInstall(sdk(), installDir);
        String digest = install.copy(RESOURCES, FILES, Set.of("requirements.txt"), python);
        if (!install.installed(digest, "venv")) {
            install.delete("venv");
            steps.add(SdkProcess.run(sdk(), "venv", List.of(python, "-m", "venv", "venv"), installDir, Map.of(),
                    VENV_TIMEOUT, logDir));
            steps.add(SdkProcess.run(sdk(), "pip install", List.of(venvPython(), "-m", "pip", "install", "--no-input",
                    "--disable-pip-version-check", "-r", "requirements.txt"), installDir, Map.of(), INSTALL_TIMEOUT,
                    logDir));
            install.markInstalled(digest);
        }
        List<String> command = new ArrayList<>(List.of(venvPython()));
        command.addAll(script);
        Map<String, String> environment = new HashMap<>(env);
        environment.put("SENTRY_DSN", target.dsn());
        environment.put("CHUNK_RELAY_BUSY_MILLIS", String.valueOf(busyWork.toMillis()));
        steps.add(SdkProcess.run(sdk(), "run " + script.get(0), command, installDir, environment, RUN_TIMEOUT,
                logDir));
        return new Run(sdk(), steps);
    }

    private String venvPython() {
        return installDir.resolve("venv").resolve("bin").resolve("python").toString();
    }

    /** The first interpreter that can make a virtual environment with pip in it. */
    private String interpreter() {
        List<String> tried = new ArrayList<>();
        for (String candidate : INTERPRETERS) {
            if (canMakeVenv(candidate)) {
                return candidate;
            }
            tried.add(candidate);
        }
        throw new AssertionError(sdk() + " SDK, step 'find python': none of " + tried + " can run "
                + "'import venv, ensurepip' (on Debian: apt-get install python3-venv, as .ci/run does)");
    }

    private static boolean canMakeVenv(String python) {
        try {
            Process probe = new ProcessBuilder(python, "-c", "import venv, ensurepip")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!probe.waitFor(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                probe.destroyForcibly();
                return false;
            }
            return probe.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
