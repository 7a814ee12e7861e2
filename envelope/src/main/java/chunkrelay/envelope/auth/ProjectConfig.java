package chunkrelay.envelope.auth;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * One project the relay accepts, from {@code relay.projects.<id>}.
 *
 * @param id          the numeric project id (the property name)
 * @param keys        the public keys (32 characters) that may send to it (none by default: only open mode then lets it in)
 * @param serviceName {@code service.name} of its OTLP profiles; by default taken from the chunk's release
 * @param rateLimits  its quotas, {@code relay.projects.<id>.rate-limits.*}; none by default
 * @param retention   how long its days are kept, e.g. {@code 90d}; by default {@code relay.storage.retention};
 *                    {@code 0} keeps forever
 */
@EachProperty("relay.projects")
public record ProjectConfig(@Parameter String id, @Nullable List<String> keys,
                            @Nullable String serviceName, @Nullable RateLimits rateLimits,
                            @Nullable String retention) {

    /**
     * Per-minute quotas of a project's profile chunks, both categories together; unset means unlimited.
     *
     * @param chunksPerMinute profile chunks accepted per minute
     * @param bytesPerMinute  decoded profile chunk payload bytes accepted per minute
     */
    @ConfigurationProperties("rate-limits")
    public record RateLimits(@Nullable Long chunksPerMinute, @Nullable Long bytesPerMinute) {
    }
}
