package chunkrelay.envelope.health;

import chunkrelay.storage.HealthObjects;
import chunkrelay.storage.ObjectStore;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The health counts' objects in the relay's bucket. */
@Factory
public class HealthFactory {

    @Singleton
    HealthObjects healthObjects(ObjectStore store) {
        return new HealthObjects(store);
    }
}
