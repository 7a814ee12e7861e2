package chunkrelay.storage;

import chunkrelay.retry.Backoff;
import chunkrelay.retry.Sleeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;

/**
 * How the store runs one logical request: attempts with exponential backoff and jitter inside one deadline, the
 * deadline and the waits between attempts both on the store's clock ({@link Sleeper#on}), the retryable failures
 * told from the final ones, and a failure reported as {@link ArchiveUnavailableException}. The SDK's own retries are
 * off, so that {@link Attempts} knows when a 412 may answer a write of ours.
 */
final class StoreRequests {
    private static final Logger LOG = LoggerFactory.getLogger(StoreRequests.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private final ArchiveSettings settings;
    private final Backoff backoff;
    private final Clock clock;
    private final Sleeper sleeper;

    StoreRequests(ArchiveSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.backoff = new Backoff(settings.retryBackoff(), MAX_BACKOFF, 2);
        this.sleeper = Sleeper.on(clock);
    }

    /** A deadline of the configured length, from now. */
    Deadline deadline() {
        return new Deadline(settings.deadline(), clock);
    }

    /** Runs {@code request} with the time left as its timeout until it succeeds, fails for good or time runs out. */
    <T> T run(String what, Deadline deadline, Attempts attempts, Function<Duration, T> request) {
        for (int attempt = 1; ; attempt++) {
            Duration remaining = deadline.remaining();
            if (remaining.isZero()) {
                throw unavailable(what, "deadline of " + settings.deadline().toMillis() + " ms passed", attempts,
                        attempts.last);
            }
            try {
                return request.apply(remaining);
            } catch (SdkException e) {
                attempts.record(e);
                if (!retryable(e)) {
                    throw unavailable(what, "refused", attempts, e);
                }
                if (attempt >= settings.retryAttempts()) {
                    throw unavailable(what, "failed " + attempt + " times", attempts, e);
                }
                Duration wait = backoff.delay(attempt);
                if (wait.compareTo(deadline.remaining()) >= 0) {
                    throw unavailable(what, "no time left for another attempt within "
                            + settings.deadline().toMillis() + " ms", attempts, e);
                }
                LOG.debug("{} failed (attempt {}), retrying in {} ms: {}", what, attempt, wait.toMillis(),
                        e.toString());
                sleep(wait, what, attempts, e);
            }
        }
    }

    /** As {@link #run(String, Deadline, Attempts, Function)}, on a deadline of its own. */
    <T> T run(String what, Function<Duration, T> request) {
        return run(what, deadline(), new Attempts(), request);
    }

    private void sleep(Duration wait, String what, Attempts attempts, SdkException last) {
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(what, "interrupted", attempts, last);
        }
    }

    /** Connection failures, timeouts, throttling and server errors are worth another attempt; other 4xx are not. */
    private static boolean retryable(SdkException e) {
        if (e instanceof SdkClientException) {
            return true;
        }
        if (e instanceof SdkServiceException service) {
            int status = service.statusCode();
            return status >= 500 || status == 408 || status == 429
                    || (status == 409 && e instanceof S3Exception s3e && s3e.awsErrorDetails() != null
                    && "ConditionalRequestConflict".equals(s3e.awsErrorDetails().errorCode()));
        }
        return false;
    }

    private ArchiveUnavailableException unavailable(String what, String why, Attempts attempts, Throwable cause) {
        String message = "archive " + settings.describeTarget() + ": " + what + ": " + why
                + (cause == null ? "" : " (" + cause.getMessage() + ")");
        LOG.warn(message);
        return new ArchiveUnavailableException(message, cause, attempts.mayHaveWritten);
    }

    /** What one logical request saw across its attempts. */
    static final class Attempts {
        int failures;
        SdkException last;
        /** Some attempt failed in a way that does not rule out that the server applied it. */
        boolean mayHaveWritten;

        void record(SdkException e) {
            failures++;
            last = e;
            if (!(e instanceof SdkServiceException) && !causedBy(e, ConnectException.class)) {
                mayHaveWritten = true;
            }
        }

        private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
            return false;
        }
    }
}
