package chunkrelay.envelope.sdk;

import io.sentry.ProfileLifecycle;
import io.sentry.ITransaction;
import io.sentry.Sentry;
import io.sentry.SentryEnvelopeItem;
import io.sentry.SentryItemType;
import io.sentry.SentryLevel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs sentry-java with continuous profiling (manual lifecycle, async-profiler) against the relay named by the DSN,
 * profiling a few seconds of CPU work in distinctively named methods on a named thread. Forked by {@link SdkProcess}
 * as its own JVM, so the profiler sees a process of its own.
 *
 * <p>Arguments: {@code <dsn> [busy-millis]}; the DSN falls back to {@code SENTRY_DSN}. Exit codes: 2 no DSN, 3 the
 * SDK or its profiler did not start, 4 no profile chunk was captured after stopping.
 */
public final class JavaSdkDriver {

    static final String BUSY_THREAD_NAME = "chunk-relay-java-busy";

    private static volatile long checksum;

    private JavaSdkDriver() {
    }

    public static void main(String[] args) throws Exception {
        String dsn = args.length > 0 ? args[0] : System.getenv("SENTRY_DSN");
        if (dsn == null || dsn.isBlank()) {
            System.err.println("chunk-relay java driver: no DSN (argument or SENTRY_DSN)");
            System.exit(2);
        }
        long busyMillis = args.length > 1 ? Long.parseLong(args[1]) : 6_000;
        CountDownLatch chunkCaptured = new CountDownLatch(1);
        // The SDK disables profiling without a writable traces directory: async-profiler writes its JFR files there
        // (removed once converted). Kept in the working directory the test gives this JVM.
        Path tracesDir = Files.createDirectories(Path.of("profiling-traces").toAbsolutePath());

        Sentry.init(options -> {
            options.setDsn(dsn);
            options.setRelease("chunk-relay-e2e-java@1.0.0");
            options.setEnvironment("e2e");
            options.setDebug(true);
            options.setDiagnosticLevel(SentryLevel.INFO);
            options.setProfileSessionSampleRate(1.0);
            options.setTracesSampleRate(1.0);
            options.setProfileLifecycle(ProfileLifecycle.MANUAL);
            options.setProfilingTracesDirPath(tracesDir.toString());
            options.setShutdownTimeoutMillis(10_000);
            options.setBeforeEnvelopeCallback((envelope, hint) -> {
                for (SentryEnvelopeItem item : envelope.getItems()) {
                    if (item.getHeader().getType() == SentryItemType.ProfileChunk) {
                        chunkCaptured.countDown();
                    }
                }
            });
        });
        if (!Sentry.isEnabled() || !Sentry.getCurrentScopes().getOptions().isContinuousProfilingEnabled()) {
            System.err.println("chunk-relay java driver: Sentry or continuous profiling did not start");
            System.exit(3);
        }

        Sentry.startSession();
        Sentry.startProfiler();
        // a transaction, an error and a session too, which the relay passes on to an upstream Sentry
        ITransaction transaction = Sentry.startTransaction("chunk-relay-e2e-transaction", "task");
        Thread busy = new Thread(() -> chunkRelayJavaBusyWork(busyMillis), BUSY_THREAD_NAME);
        busy.start();
        busy.join();
        transaction.finish();
        Sentry.stopProfiler();
        Sentry.captureException(new IllegalStateException("chunk-relay e2e error"));
        Sentry.endSession();
        // Stopping hands the last chunk to the SDK's executor, which converts the JFR file and only then captures
        // it: a flush right away finds nothing queued, and close() can shut the client before the capture.
        if (!chunkCaptured.await(30, TimeUnit.SECONDS)) {
            System.err.println("chunk-relay java driver: no profile chunk was captured within 30 s of stopping");
            System.exit(4);
        }
        Sentry.flush(10_000);
        Sentry.close();
        System.out.println("chunk-relay java driver: done, checksum " + checksum);
    }

    static void chunkRelayJavaBusyWork(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long sum = 0;
        while (System.nanoTime() < deadline) {
            sum += chunkRelayJavaBusyPrimes(60_000);
            sum += chunkRelayJavaBusyCollatz(40_000);
        }
        checksum = sum;
    }

    static int chunkRelayJavaBusyPrimes(int limit) {
        int primes = 0;
        for (int candidate = 2; candidate <= limit; candidate++) {
            boolean prime = true;
            for (int divisor = 2; (long) divisor * divisor <= candidate; divisor++) {
                if (candidate % divisor == 0) {
                    prime = false;
                    break;
                }
            }
            if (prime) {
                primes++;
            }
        }
        return primes;
    }

    static long chunkRelayJavaBusyCollatz(int limit) {
        long longest = 0;
        for (long start = 1; start <= limit; start++) {
            long steps = 0;
            for (long n = start; n != 1; n = (n & 1) == 0 ? n >>> 1 : 3 * n + 1) {
                steps++;
            }
            longest = Math.max(longest, steps);
        }
        return longest;
    }
}
