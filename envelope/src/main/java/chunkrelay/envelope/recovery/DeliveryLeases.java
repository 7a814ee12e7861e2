package chunkrelay.envelope.recovery;

import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.ObjectStore;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

/**
 * Claims on undelivered chunks, shared by the recovery pass and {@code replay} on every replica: the
 * {@link ObjectLease} {@code {stem}.recovery-lease-} of the chunk, so that of all claimants exactly one sends it, and a
 * claim holds for at least one whole lease, longer than an export's retries take.
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

    /** The chunk's lease, for this process to acquire and release. */
    ObjectLease of(ArchiveKey key) {
        return new ObjectLease(store, key.stem() + LEASE_SUFFIX, lease, clock, claimant);
    }
}
