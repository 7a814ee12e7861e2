package chunkrelay.envelope.archive;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * How chunks are archived, {@code relay.storage.*}.
 *
 * @param compression {@code zstd} or {@code gzip}
 * @param deadline    time budget of archiving one chunk, retries included; past it the client gets 503
 */
@ConfigurationProperties("relay.storage")
public record StorageConfig(@Bindable(defaultValue = "zstd") String compression,
                            @Bindable(defaultValue = "10s") Duration deadline) {
}
