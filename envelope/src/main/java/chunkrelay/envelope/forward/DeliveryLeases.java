package chunkrelay.envelope.forward;

import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ObjectStore;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Claims on undelivered chunks, shared by the recovery pass and {@code replay} on every replica: a lease object
 * {@code {stem}.recovery-lease-{n}} written with {@code If-None-Match: *}, where {@code n} numbers the lease-long
 * period of the wall clock, so that of all claimants exactly one creates it. A claim is refused too while the lease of
 * the period before exists, so every claim holds for at least one whole lease, longer than an export's retries take.
 */
final class DeliveryLeases {
    static final String LEASE_SUFFIX = ".recovery-lease-";

    private final ObjectStore store;
    private final Duration lease;
    private final Clock clock;
    /** This process, in lease objects, for whoever reads the bucket. */
    private final String claimant = UUID.randomUUID().toString();

    DeliveryLeases(ObjectStore store, Duration lease, Clock clock) {
        this.store = store;
        this.lease = lease;
        this.clock = clock;
    }

    /** The lease object this call created for the chunk, or empty when another claimant holds it. */
    Optional<String> claim(ArchiveKey key) {
        long period = clock.millis() / lease.toMillis();
        String object = key.stem() + LEASE_SUFFIX + period;
        if (store.readObject(key.stem() + LEASE_SUFFIX + (period - 1)).isPresent()
                || !store.storeObjectIfAbsent(object, claimant.getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(object);
    }

    void release(String object) {
        store.deleteObject(object);
    }
}
