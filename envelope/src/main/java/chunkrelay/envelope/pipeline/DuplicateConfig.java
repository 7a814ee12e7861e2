package chunkrelay.envelope.pipeline;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * How long accepted chunks are remembered to answer repeats without work, {@code relay.duplicates.*}.
 *
 * @param maxChunks   how many (project, chunk id) pairs are remembered at most
 * @param expireAfter how long one is remembered after it was archived
 */
@ConfigurationProperties("relay.duplicates")
public record DuplicateConfig(@Bindable(defaultValue = "100000") long maxChunks,
                              @Bindable(defaultValue = "10m") Duration expireAfter) {
}
