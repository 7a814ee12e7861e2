package chunkrelay.envelope.auth;

import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** Counts quotas in Redis when {@code relay.redis.uri} is set, else in this process. */
@Factory
class QuotaCounterFactory {

    @Singleton
    @Bean(preDestroy = "close")
    QuotaCounter quotaCounter(RedisQuotaConfig config, MeterRegistry meters, TimeBuckets buckets) {
        return config.enabled() ? new RedisQuotaCounter(config, meters, buckets) : new LocalQuotaCounter(buckets);
    }
}
