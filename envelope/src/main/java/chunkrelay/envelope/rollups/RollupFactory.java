package chunkrelay.envelope.rollups;

import chunkrelay.envelope.archive.StorageConfig;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.ObjectStore;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.TimeBuckets;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;

/** The time buckets, the index by time and the rollup objects, on the relay's one store and clock. */
@Factory
public class RollupFactory {
    /** Clock skew between replicas that a late chunk's check allows, beyond the time its index write may take. */
    private static final Duration SKEW = Duration.ofSeconds(5);

    @Singleton
    TimeBuckets timeBuckets(Clock clock, RollupConfig rollups) {
        return new TimeBuckets(clock, rollups.delay());
    }

    @Singleton
    ChunkTimeIndex chunkTimeIndex(ObjectStore store, TimeBuckets buckets, StorageConfig storage) {
        return new ChunkTimeIndex(store, buckets, storage.deadline().plus(SKEW));
    }

    @Singleton
    RollupObjects rollupObjects(ObjectStore store) {
        return new RollupObjects(store);
    }
}
