package chunkrelay.envelope.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code @sentry/node} 11.1.0 with {@code @sentry/profiling-node} 11.1.0, installed from the npm registry with the
 * lockfile in {@code sdk-e2e/node/} into a directory the test owns, then run as {@code node driver.js}.
 *
 * <p>The install is kept between runs: a marker file holds the digest of package.json and package-lock.json, and
 * {@code npm ci} runs again only when they change or node_modules is gone.
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
        String digest = copyDriver();
        Path marker = installDir.resolve(".installed-digest");
        if (!digest.equals(readMarker(marker)) || !Files.isDirectory(installDir.resolve("node_modules"))) {
            deleteTree(installDir.resolve("node_modules"));
            // Scripts stay off: the profiler's only install script compiles from source when the prebuilt binary
            // does not load, which would hide the problem the check step below reports.
            steps.add(SdkProcess.run(sdk(), "npm ci", List.of("npm", "ci", "--ignore-scripts", "--no-audit",
                    "--no-fund"), installDir, Map.of(), INSTALL_TIMEOUT, logDir));
            writeMarker(marker, digest);
        }
        steps.add(SdkProcess.run(sdk(), "load native profiler", List.of("node", "driver.js", "--check-profiler"),
                installDir, Map.of(), CHECK_TIMEOUT, logDir));
        steps.add(SdkProcess.run(sdk(), "run", List.of("node", "driver.js"), installDir,
                Map.of("SENTRY_DSN", target.dsn(), "CHUNK_RELAY_BUSY_MILLIS", String.valueOf(busyWork.toMillis()),
                        "CHUNK_RELAY_SENTRY_DEBUG", "1"),
                RUN_TIMEOUT, logDir));
        return new Run(sdk(), steps);
    }

    private String copyDriver() {
        try {
            Files.createDirectories(installDir);
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String file : FILES) {
                byte[] bytes;
                try (InputStream in = NodeSdkRunner.class.getResourceAsStream(RESOURCES + file)) {
                    if (in == null) {
                        throw new AssertionError("node SDK, step 'copy driver': test resource " + RESOURCES + file
                                + " is missing");
                    }
                    bytes = in.readAllBytes();
                }
                Files.write(installDir.resolve(file), bytes);
                if (!file.equals("driver.js")) {
                    digest.update(bytes);
                }
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("node SDK, step 'copy driver' into " + installDir, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String readMarker(Path marker) {
        try {
            return Files.exists(marker) ? Files.readString(marker).trim() : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static void writeMarker(Path marker, String digest) {
        try {
            Files.writeString(marker, digest);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("node SDK, step 'npm ci': could not clear " + root, e);
        }
    }
}
