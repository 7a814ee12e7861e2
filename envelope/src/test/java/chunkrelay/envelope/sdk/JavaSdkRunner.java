package chunkrelay.envelope.sdk;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code io.sentry:sentry} 8.43.0 with {@code sentry-async-profiler} 8.43.0 (test dependencies of this module), run
 * as {@link JavaSdkDriver} in a forked JVM with this test's classpath.
 */
public final class JavaSdkRunner implements SdkRunner {

    static final List<String> BUSY_METHODS = List.of("chunkRelayJavaBusyPrimes", "chunkRelayJavaBusyCollatz");
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

    private final Path workDir;
    private final Path logDir;
    private final Duration busyWork;

    /**
     * @param workDir  the forked JVM's working directory
     * @param logDir   where the run's stdout and stderr go
     * @param busyWork how long the driver runs its profiled work
     */
    public JavaSdkRunner(Path workDir, Path logDir, Duration busyWork) {
        this.workDir = workDir;
        this.logDir = logDir;
        this.busyWork = busyWork;
    }

    @Override
    public String sdk() {
        return "java";
    }

    @Override
    public ExpectedProfile expectedProfile() {
        return new ExpectedProfile(sdk(), "java", "sentry.java", BUSY_METHODS,
                new ExpectedProfile.ThreadName(JavaSdkDriver.BUSY_THREAD_NAME));
    }

    @Override
    public Run run(RelayTarget target) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Under Surefire this is its manifest-only jar, whose Class-Path carries the whole test classpath.
        String classpath = System.getProperty("java.class.path");
        List<String> command = List.of(java, "-Xmx256m", "-cp", classpath, JavaSdkDriver.class.getName(),
                target.dsn(), String.valueOf(busyWork.toMillis()));
        return new Run(sdk(), List.of(SdkProcess.run(sdk(), "run", command, workDir, Map.of(), RUN_TIMEOUT, logDir)));
    }
}
