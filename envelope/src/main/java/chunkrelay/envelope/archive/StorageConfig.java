package chunkrelay.envelope.archive;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * How chunks are archived and how long they are kept, {@code relay.storage.*}.
 *
 * @param compression       {@code zstd} or {@code gzip}
 * @param deadline          time budget of archiving one chunk, retries included; past it the client gets 503
 * @param retention         how long a project's days are kept unless it has a retention of its own
 *                          ({@code relay.projects.<id>.retention}); {@code 0} keeps forever ({@link RetentionPeriod})
 * @param retentionInterval how often the retention sweep runs (on one replica of those sharing the bucket)
 */
@ConfigurationProperties("relay.storage")
public record StorageConfig(@Bindable(defaultValue = "zstd") String compression,
                            @Bindable(defaultValue = "10s") Duration deadline,
                            @Bindable(defaultValue = "30d") String retention,
                            @Bindable(defaultValue = "1h") Duration retentionInterval) {

    public StorageConfig {
        RetentionPeriod.parse("relay.storage.retention", retention);
        if (retentionInterval.isNegative() || retentionInterval.isZero()) {
            throw new ConfigurationException(
                    "relay.storage.retention-interval must be positive, got " + retentionInterval);
        }
    }

    /** How long a project's days are kept unless it has a retention of its own; zero keeps forever. */
    public Duration retentionPeriod() {
        return RetentionPeriod.parse("relay.storage.retention", retention);
    }
}
