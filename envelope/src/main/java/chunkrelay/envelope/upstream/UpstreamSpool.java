package chunkrelay.envelope.upstream;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.retry.Backoff;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.ObjectStore;

import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The envelopes for the upstream that wait in the bucket, under {@code upstream-spool/}: those the memory queue
 * could not hold, those the upstream did not take for a network reason, and those left at shutdown. Each object is
 * named by when its envelope arrived, so the spool is sent oldest first; it is deleted once the envelope is settled,
 * by this relay or, after a restart, by any relay sharing the bucket. Replicas claim each envelope before sending
 * it, so that they send each one once.
 */
public final class UpstreamSpool {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamSpool.class);
    /** How often the bucket is listed when this relay has spooled nothing: another replica's or a gone relay's. */
    private static final long IDLE_LISTING_MILLIS = 30_000;

    /** Hands a spooled envelope on: true once it is settled (delivered, refused for good or expired), to delete. */
    @FunctionalInterface
    interface Delivery {
        boolean settled(UpstreamEnvelope envelope);
    }

    private final UpstreamConfig config;
    private final ObjectStore store;
    private final MeterRegistry meters;
    private final Clock clock;
    private final Delivery delivery;
    private final AtomicLong depth = new AtomicLong();
    /**
     * Envelopes this relay has spooled, ever: a round lists the bucket when it grew since the last listing began, so
     * that an envelope spooled while a listing ran (and missed by it, its count overwritten by the listing's) is not
     * left for the idle listing, 30 s later.
     */
    private final AtomicLong spooledHere = new AtomicLong();
    private final AtomicLong oldestMillis = new AtomicLong();
    /** Spool key to this relay's claim on it. */
    private final Map<String, ObjectLease> claims = new ConcurrentHashMap<>();
    /** This relay, in claim objects. */
    private final String claimant = UUID.randomUUID().toString();
    /** From retry-initial, growing by half, up to retry-max, while the upstream stays down. */
    private final Backoff backoff;
    private volatile boolean stopping;
    /** When the spool was last listed; 0 so that a starting relay lists it at once. */
    private volatile long lastListing;
    /** {@link #spooledHere} when the last listing began. */
    private volatile long spooledAtListing;
    /** While the upstream stays down, the spool is tried again only after this (epoch millis). */
    private volatile long nextAttempt;
    /** Rounds in a row that found the upstream down. */
    private volatile int failures;

    UpstreamSpool(UpstreamConfig config, ObjectStore store, MeterRegistry meters, Clock clock, Delivery delivery) {
        this.config = config;
        this.store = store;
        this.meters = meters;
        this.clock = clock;
        this.delivery = delivery;
        this.backoff = new Backoff(config.retryInitial(), config.retryMax(), 1.5);
        RelayMeter.UPSTREAM_SPOOL_DEPTH.gauge(meters, depth, AtomicLong::get);
        RelayMeter.UPSTREAM_SPOOL_OLDEST_AGE.gauge(meters, oldestMillis, v -> v.get() / 1000.0);
    }

    /**
     * Writes the envelope to the spool. Keys sort by when the envelope arrived, so the spool is sent oldest first.
     *
     * @throws ArchiveUnavailableException when the bucket does not take it
     */
    void add(UpstreamEnvelope envelope) {
        String key = ArchiveLayout.UPSTREAM_SPOOL + String.format("%020d", envelope.receivedAt().toEpochMilli()) + "-"
                + UUID.randomUUID() + ".envelope";
        store.storeObject(key, envelope.spooled());
        spooledHere.incrementAndGet();
        depth.incrementAndGet();
        RelayMeter.UPSTREAM_ENVELOPES.counter(meters, "spooled").increment();
    }

    /** What waited in memory or was being retried when the relay stops, for the next relay to send. */
    void addAtShutdown(List<UpstreamEnvelope> left) {
        for (UpstreamEnvelope envelope : left) {
            try {
                add(envelope);
            } catch (ArchiveUnavailableException e) {
                LOG.error("lost an envelope of project {} at shutdown: the spool is unavailable ({})",
                        envelope.projectId(), e.getMessage());
            }
        }
        if (!left.isEmpty()) {
            LOG.info("spooled {} envelopes for the upstream at shutdown", left.size());
        }
    }

    /**
     * Sends the spool oldest first while the upstream answers; stops at the first failure, for the next round,
     * which waits longer each time the upstream is still down. The bucket is listed each round while this relay has
     * spooled or found something, else every 30 s.
     */
    void sendRound() {
        long now = clock.millis();
        long spooledSoFar = spooledHere.get();
        if (stopping || now < nextAttempt
                || depth.get() == 0 && spooledSoFar == spooledAtListing && now - lastListing < IDLE_LISTING_MILLIS) {
            return;
        }
        lastListing = now;
        spooledAtListing = spooledSoFar;
        try {
            List<String> keys = store.listObjects(ArchiveLayout.UPSTREAM_SPOOL);
            depth.set(keys.size());
            oldestMillis.set(keys.isEmpty() ? 0 : Math.max(0, clock.millis() - arrival(keys.get(0))));
            for (String key : keys) {
                if (stopping) {
                    return;
                }
                if (!claim(key)) {
                    // another replica is sending it
                    continue;
                }
                Optional<byte[]> spooled = store.readObject(key);
                if (spooled.isEmpty()) {
                    release(key);
                    continue;
                }
                if (!delivery.settled(UpstreamEnvelope.fromSpool(spooled.get()))) {
                    RelayMeter.UPSTREAM_RETRIES.counter(meters).increment();
                    nextAttempt = clock.millis() + backoff.delay(++failures).toMillis();
                    return;
                }
                failures = 0;
                store.deleteObject(key);
                release(key);
                depth.decrementAndGet();
            }
        } catch (RuntimeException e) {
            if (!stopping) {
                LOG.warn("could not send the upstream spool: {}", e.toString());
            }
        }
    }

    /** No round starts after this, and one under way stops before its next envelope. */
    void stop() {
        stopping = true;
    }

    /**
     * Claims a spooled envelope for this relay, or renews its claim: an {@link ObjectLease}
     * {@code upstream-spool-claims/{name}.} of {@code relay.upstream.spool-claim}. A claim another relay holds is left
     * to it: it may still be sending. So replicas draining one spool send each envelope once, unless a holder dies
     * between sending and deleting, when the envelope is sent again a claim or two later (at least once, never lost).
     */
    private boolean claim(String key) {
        ObjectLease lease = claims.computeIfAbsent(key, k -> new ObjectLease(store,
                ArchiveLayout.UPSTREAM_SPOOL_CLAIMS + k.substring(ArchiveLayout.UPSTREAM_SPOOL.length()) + ".", config.spoolClaim(), clock, claimant));
        if (lease.acquire()) {
            return true;
        }
        claims.remove(key);
        return false;
    }

    /** Drops this relay's claim objects of a spooled envelope it is done with. */
    private void release(String key) {
        ObjectLease lease = claims.remove(key);
        if (lease != null) {
            lease.release();
        }
    }

    /** When the envelope of a spool key arrived (epoch millis); 0 for a key not named by the relay. */
    private static long arrival(String key) {
        String name = key.substring(ArchiveLayout.UPSTREAM_SPOOL.length());
        try {
            return Long.parseLong(name.substring(0, name.indexOf('-')));
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
