package chunkrelay.storage;

import java.time.Clock;

/**
 * Every {@link ObjectStoreTest} again with the store reaching the embedded server's store in-process, as the relay
 * reaches its own default store: the same answers, retries and deadlines as over HTTP.
 */
class InProcessObjectStoreTest extends ObjectStoreTest {

    @Override
    ObjectStore open(ArchiveSettings settings) {
        return ObjectStore.inProcess(server, settings, Clock.systemUTC());
    }
}
