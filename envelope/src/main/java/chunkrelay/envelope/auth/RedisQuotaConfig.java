package chunkrelay.envelope.auth;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * Where project quotas are counted when several replicas must share them ({@code relay.redis}).
 *
 * @param uri            a Redis URI such as {@code redis://redis:6379} (Lettuce's syntax: {@code rediss://} for TLS,
 *                       {@code redis://:password@host:port/db}); empty (the default): each relay counts its own
 * @param commandTimeout how long one quota check may wait for Redis before the relay accepts the chunks unchecked
 * @param connectTimeout how long a connection attempt may take; a failed one is tried again after a second
 * @param keyPrefix      prefix of the relay's keys in Redis, so that several relays (or other users) can share one
 */
@ConfigurationProperties("relay.redis")
public record RedisQuotaConfig(
        @Bindable(defaultValue = "") String uri,
        @Bindable(defaultValue = "250ms") Duration commandTimeout,
        @Bindable(defaultValue = "1s") Duration connectTimeout,
        @Bindable(defaultValue = "chunk-relay:") String keyPrefix) {

    public boolean enabled() {
        return uri != null && !uri.isBlank();
    }
}
