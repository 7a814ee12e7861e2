package chunkrelay.envelope.auth;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * Counts quotas in Redis when {@code relay.redis.uri} is set, else in this process. Redis's client and its threads
 * are closed with the other clients, after intake, the last to count, has stopped ({@link BackgroundWork.Stage}).
 */
@Factory
class QuotaCounterFactory {

    @Singleton
    QuotaCounter quotaCounter(RedisQuotaConfig config, MeterRegistry meters, TimeBuckets buckets,
                              BackgroundWork work) {
        if (!config.enabled()) {
            return new LocalQuotaCounter(buckets);
        }
        RedisQuotaCounter redis = new RedisQuotaCounter(config, meters, buckets);
        work.atStop(BackgroundWork.Stage.CLIENTS, "Redis client", left -> redis.close());
        return redis;
    }
}
