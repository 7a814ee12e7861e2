package chunkrelay.envelope.disk;

import chunkrelay.envelope.archive.EmbeddedStorageConfig;
import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RetryLater;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.EmbeddedS3Server;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

import java.io.File;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Keeps the embedded store's disk from filling: while its free space is below
 * {@code relay.storage.embedded.min-free-disk} every envelope is refused, before its body is read and before
 * anything is written, with 503 and {@code Retry-After}, and it is taken again as soon as there is room (free space is
 * read at each envelope, one {@code statfs}). The margin is what the relay still writes for what it accepted before:
 * OTLP forms derived after their window, markers, heartbeats. A whole envelope is refused, not only its chunks: the
 * replica is unready meanwhile ({@link DiskGuardHealthIndicator}), so its load balancer sends everything elsewhere.
 * With an external bucket there is no disk of the relay's to guard and nothing is refused.
 */
@Singleton
public class DiskGuard {
    private final File directory;
    private final long minFreeBytes;
    private final RetryLater retryLater;
    private final Counter refusals;

    public DiskGuard(@Nullable EmbeddedS3Server embedded, EmbeddedStorageConfig config, RetryLater retryLater,
                     MeterRegistry meters) {
        this.directory = embedded == null ? null : embedded.directory().map(Path::toFile).orElse(null);
        this.minFreeBytes = config.minFreeDiskBytes();
        this.retryLater = retryLater;
        this.refusals = RelayMeter.DISK_GUARD_REFUSALS.counter(meters);
        if (directory != null) {
            RelayMeter.DISK_FREE.gauge(meters, directory, File::getUsableSpace);
        }
    }

    /** Free bytes for the embedded store (0 when its directory cannot be read). */
    public long freeBytes() {
        return directory == null ? Long.MAX_VALUE : directory.getUsableSpace();
    }

    public long minFreeBytes() {
        return minFreeBytes;
    }

    public String directory() {
        return directory == null ? "" : directory.toString();
    }

    /**
     * The answer to an envelope while below the minimum: 503 with {@code Retry-After} ({@link RetryLater}); empty while
     * there is room.
     */
    public Optional<RelayError> refusal() {
        long free = freeBytes();
        if (directory == null || free >= minFreeBytes) {
            return Optional.empty();
        }
        refusals.increment();
        return Optional.of(retryLater.cannotQueue("the relay's disk is nearly full (" + free
                + " bytes free, below its minimum of " + minFreeBytes + "); retry later"));
    }

    /** For the start-up log. */
    public String describe() {
        if (directory == null) {
            return "none (external bucket)";
        }
        return mib(freeBytes()) + " free under " + directory + ", envelopes refused below " + mib(minFreeBytes)
                + " (relay.storage.embedded.min-free-disk)";
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
