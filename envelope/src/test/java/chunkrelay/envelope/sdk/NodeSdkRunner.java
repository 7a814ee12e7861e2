package chunkrelay.envelope.sdk;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code @sentry/node} 11.1.0 with {@code @sentry/profiling-node} 11.1.0, installed from the npm registry with the
 * lockfile in {@code sdk-e2e/node/} into a directory the test owns, then run as {@code node driver.js}.
 *
 * <p>The install is kept between runs ({@link SdkInstall}): {@code npm ci} runs again only when package.json or
 * package-lock.json change or node_modules is gone.
 */
public final class NodeSdkRunner implements SdkRunner {

    static final List<String> BUSY_FUNCTIONS = List.of("chunkRelayNodeBusyFibonacci", "chunkRelayNodeBusySieve");
    private static final String RESOURCES = "/sdk-e2e/node/";
    private static final List<String> FILES = List.of("package.json", "package-lock.json", "driver.js");
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

    private final Path installDir;
    private final Path logDir;
    private final Duration busyWork;

    /**
     * @param installDir where the driver is copied and its packages installed (kept between runs)
     * @param logDir     where each step's stdout and stderr go
     * @param busyWork   how long the driver runs its profiled work
     */
    public NodeSdkRunner(Path installDir, Path logDir, Duration busyWork) {
        this.installDir = installDir;
        this.logDir = logDir;
        this.busyWork = busyWork;
    }

    @Override
    public String sdk() {
        return "node";
    }

    @Override
    public ExpectedProfile expectedProfile() {
        // The Node profiler samples the main isolate only, which chunks call thread "0".
        return new ExpectedProfile(sdk(), "node", "sentry.javascript.node", BUSY_FUNCTIONS,
                new ExpectedProfile.ThreadId("0"));
    }

    @Override
    public Run run(RelayTarget target) {
        List<SdkProcess.StepResult> steps = new ArrayList<>();
        SdkInstall install = new SdkInstall(sdk(), installDir);
        String digest = install.copy(RESOURCES, FILES, Set.of("package.json", "package-lock.json"), "");
        if (!install.installed(digest, "node_modules")) {
            install.delete("node_modules");
            // Scripts stay off: the profiler's only install script compiles from source when the prebuilt binary
            // does not load, which would hide the problem the check step below reports.
            steps.add(SdkProcess.run(sdk(), "npm ci", List.of("npm", "ci", "--ignore-scripts", "--no-audit",
                    "--no-fund"), installDir, Map.of(), INSTALL_TIMEOUT, logDir));
            install.markInstalled(digest);
        }
        steps.add(SdkProcess.run(sdk(), "load native profiler", List.of("node", "driver.js", "--check-profiler"),
                installDir, Map.of(), CHECK_TIMEOUT, logDir));
        steps.add(SdkProcess.run(sdk(), "run", List.of("node", "driver.js"), installDir,
                Map.of("SENTRY_DSN", target.dsn(), "CHUNK_RELAY_BUSY_MILLIS", String.valueOf(busyWork.toMillis()),
                        "CHUNK_RELAY_SENTRY_DEBUG", "1"),
                RUN_TIMEOUT, logDir));
        return new Run(sdk(), steps);
    }
}
