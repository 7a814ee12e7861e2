package chunkrelay.envelope.upstream;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.retry.Backoff;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.ObjectStore;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpStatus;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Passes envelopes on to the upstream Sentry, off the request path. An envelope is acknowledged to the SDK once it
 * is queued: in memory while the queue has room (count and bytes), else in the spool under
 * {@code upstream-spool/} in the archive bucket; when neither can take it the SDK gets 503. An envelope the
 * upstream does not take for a network reason (no answer, 502, 503, 504) goes to the spool after that one attempt;
 * the spool is sent oldest first, retried with a backoff from 1 s growing by half up to 60 s (each wait jittered
 * to between half and all of that), for at most
 * {@code relay.upstream.max-age}, and each object deleted once the upstream took it, after a restart too. Every
 * other answer is final (a 429's limits are cached for the key).
 * Created at start-up ({@code @Context}), so that a restarted relay sends its spool before any SDK writes to it; not
 * at all in the command lines' {@code cli} environment, which leave the spool to the relays.
 */
@Context
@Requires(notEnv = Environment.CLI)
public class UpstreamForwarder {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamForwarder.class);
    public static final String SPOOL_PREFIX = "upstream-spool/";
    /** Claims on spooled envelopes, so that replicas sharing the bucket send each one once. */
    public static final String CLAIM_PREFIX = "upstream-spool-claims/";
    private static final String RATE_LIMITS = "X-Sentry-Rate-Limits";

    private final UpstreamConfig config;
    private final ObjectStore store;
    private final MeterRegistry meters;
    private final Clock clock;
    private final UpstreamRateLimits rateLimits = new UpstreamRateLimits();
    private final ClientReports reports = new ClientReports();
    private final LinkedBlockingDeque<UpstreamEnvelope> queue = new LinkedBlockingDeque<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Map<UpstreamEnvelope, Boolean> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong spoolDepth = new AtomicLong();
    /** Spool key to this relay's claim on it. */
    private final Map<String, ObjectLease> claims = new ConcurrentHashMap<>();
    /** This relay, in claim objects. */
    private final String claimant = UUID.randomUUID().toString();
    private final AtomicLong spoolOldestMillis = new AtomicLong();
    private final HttpClient http;
    private final List<Thread> senders = new ArrayList<>();
    private final ScheduledExecutorService background;
    private volatile boolean stopping;
    private volatile boolean upstreamDown;
    /** When the spool was last listed; 0 so that a starting relay lists it at once. */
    private volatile long lastSpoolListing;
    /** While the upstream stays down, the spool is tried again only after this (epoch millis). */
    private volatile long nextSpoolAttempt;
    /** Spool rounds in a row that found the upstream down. */
    private volatile int spoolFailures;
    /** From retry-initial, growing by half, up to retry-max; for the spool and for envelopes retried in memory. */
    private final Backoff backoff;
    private static final long SPOOL_IDLE_LISTING_MILLIS = 30_000;

    public UpstreamForwarder(UpstreamConfig config, ObjectStore store, MeterRegistry meters, Clock clock) {
        this.config = config;
        this.store = store;
        this.meters = meters;
        this.clock = clock;
        this.backoff = new Backoff(config.retryInitial(), config.retryMax(), 1.5);
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.connectTimeout()).build();
        Gauge.builder("relay.upstream.queue.depth", queue, LinkedBlockingDeque::size)
                .description("envelopes waiting in memory for the upstream").register(meters);
        Gauge.builder("relay.upstream.queue.bytes", queuedBytes, AtomicLong::get).baseUnit("bytes")
                .description("bytes waiting in memory for the upstream").register(meters);
        Gauge.builder("relay.upstream.spool.depth", spoolDepth, AtomicLong::get)
                .description("envelopes in the spool in the bucket, as last listed").register(meters);
        Gauge.builder("relay.upstream.spool.oldest.age", spoolOldestMillis, v -> v.get() / 1000.0).baseUnit("seconds")
                .description("age of the oldest spooled envelope, as last listed").register(meters);
        this.background = Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "upstream-spool"));
        if (config.enabled()) {
            for (int i = 0; i < Math.max(1, config.senders()); i++) {
                Thread sender = daemon(this::sendLoop, "upstream-sender-" + (i + 1));
                senders.add(sender);
                sender.start();
            }
            background.scheduleWithFixedDelay(this::sendSpool, 1, 1, TimeUnit.SECONDS);
            long reportMillis = Math.max(100, config.clientReportInterval().toMillis());
            background.scheduleWithFixedDelay(this::flushReports, reportMillis, reportMillis, TimeUnit.MILLISECONDS);
        }
    }

    public boolean enabled() {
        return config.enabled();
    }

    public boolean forwardsProfileChunks() {
        return config.enabled() && config.forwardProfileChunks();
    }

    /**
     * Drops the items the upstream's cached limits cover (counted, and reported upstream) and queues the rest. An
     * envelope whose items are all limited is refused with 429 and the limits, unless the relay consumed part of
     * it (its chunks are archived): a 429 would read to the SDK as if the chunks were refused too.
     *
     * @throws RelayError 429 when every item is limited; 503 when neither the queue nor the spool takes it
     */
    public void forward(UpstreamEnvelope envelope, boolean relayConsumedSomething) {
        Instant now = clock.instant();
        List<ForwardedItem> kept = new ArrayList<>();
        List<UpstreamRateLimits.Limit> applied = new ArrayList<>();
        for (ForwardedItem item : envelope.items()) {
            Optional<UpstreamRateLimits.Limit> limit = rateLimits.limiting(envelope.publicKey(), item.type(), now);
            if (limit.isPresent()) {
                applied.add(limit.get());
                countItem(item.type(), "rate_limited");
                reports.rateLimited(envelope.projectId(), envelope.publicKey(), limit.get().reasonCode(),
                        DataCategory.reportedAs(item.type()), 1);
            } else {
                kept.add(item);
            }
        }
        if (kept.isEmpty()) {
            if (!applied.isEmpty() && !relayConsumedSomething) {
                throw rateLimited(applied, now);
            }
            return;
        }
        UpstreamEnvelope queued = envelope.withItems(kept);
        if (!offer(queued)) {
            spoolOrRefuse(queued);
        }
        kept.forEach(item -> countItem(item.type(), "queued"));
    }

    private RelayError rateLimited(List<UpstreamRateLimits.Limit> limits, Instant now) {
        long retryAfter = 1;
        List<String> entries = new ArrayList<>();
        for (UpstreamRateLimits.Limit limit : limits) {
            String entry = limit.header(now);
            if (!entries.contains(entry)) {
                entries.add(entry);
            }
            retryAfter = Math.max(retryAfter, Long.parseLong(entry.substring(0, entry.indexOf(':'))));
        }
        countEnvelope("rate_limited");
        return new RelayError(HttpStatus.TOO_MANY_REQUESTS, "event rejected due to rate limit", List.of(),
                Map.of(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter), RATE_LIMITS, String.join(",", entries)));
    }

    private boolean offer(UpstreamEnvelope envelope) {
        if (stopping || queue.size() >= config.queueEnvelopes()
                || queuedBytes.get() + envelope.size() > config.queueBytes()) {
            return false;
        }
        queuedBytes.addAndGet(envelope.size());
        queue.addLast(envelope);
        return true;
    }

    private void spoolOrRefuse(UpstreamEnvelope envelope) {
        try {
            spool(envelope);
        } catch (ArchiveUnavailableException e) {
            countEnvelope("refused_queue_full");
            throw new RelayError(HttpStatus.SERVICE_UNAVAILABLE, "failed to queue envelope",
                    List.of("the upstream queue is full and its spool unavailable; retry later"),
                    Map.of(HttpHeaders.RETRY_AFTER, "60"));
        }
    }

    /** Keys sort by when the envelope arrived, so the spool is sent oldest first. */
    private void spool(UpstreamEnvelope envelope) {
        String key = SPOOL_PREFIX + String.format("%020d", envelope.receivedAt().toEpochMilli()) + "-"
                + UUID.randomUUID() + ".envelope";
        store.storeObject(key, envelope.spooled());
        spoolDepth.incrementAndGet();
        countEnvelope("spooled");
    }

    private void sendLoop() {
        while (!stopping) {
            UpstreamEnvelope envelope;
            try {
                envelope = queue.pollFirst(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (envelope == null) {
                continue;
            }
            queuedBytes.addAndGet(-envelope.size());
            inFlight.put(envelope, Boolean.TRUE);
            if (deliverOrSpool(envelope)) {
                inFlight.remove(envelope);
            }
        }
    }

    /**
     * One attempt; an envelope the upstream did not take for a network reason goes to the spool at once, so that a
     * relay that dies during an outage loses nothing it acknowledged. Only when the spool cannot take it either is
     * it retried here, in memory. Returns false when the relay stops first: the envelope is then left in
     * {@link #inFlight} for {@link #stop()} to spool. Senders are never interrupted, so that no write is left
     * half-known.
     */
    private boolean deliverOrSpool(UpstreamEnvelope envelope) {
        int failures = 0;
        while (!stopping) {
            if (attempt(envelope) || expired(envelope)) {
                return true;
            }
            try {
                spool(envelope);
                return true;
            } catch (ArchiveUnavailableException e) {
                LOG.warn("could not spool an envelope for the upstream, retrying it in memory: {}", e.getMessage());
            }
            meters.counter("relay.upstream.retries").increment();
            long until = System.nanoTime() + backoff.delay(++failures).toNanos();
            while (!stopping && System.nanoTime() < until) {
                LockSupport.parkNanos(Math.min(until - System.nanoTime(), 100_000_000L));
            }
        }
        return false;
    }

    private boolean expired(UpstreamEnvelope envelope) {
        if (Duration.between(envelope.receivedAt(), clock.instant()).compareTo(config.maxAge()) < 0) {
            return false;
        }
        countEnvelope("expired");
        envelope.items().forEach(item -> reports.discarded(envelope.projectId(), envelope.publicKey(),
                "network_error", DataCategory.reportedAs(item.type()), 1));
        LOG.warn("dropped an envelope of project {} not delivered upstream within {}", envelope.projectId(),
                config.maxAge());
        return true;
    }

    /** One request; true when the upstream took the envelope or refused it for good, false to retry. */
    private boolean attempt(UpstreamEnvelope envelope) {
        byte[] body = envelope.wire(config.base(), clock.instant());
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(config.base() + "/api/" + envelope.projectId() + "/envelope/"))
                .timeout(config.timeoutFor(body.length))
                .header("Content-Type", "application/x-sentry-envelope")
                .header("X-Sentry-Auth", "Sentry sentry_key=" + envelope.publicKey() + ", sentry_version=7"
                        + (envelope.sentryClient() == null ? "" : ", sentry_client=" + envelope.sentryClient()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (envelope.userAgent() != null) {
            request.header("User-Agent", envelope.userAgent());
        }
        if (envelope.origin() != null) {
            request.header("Origin", envelope.origin());
        }
        if (envelope.forwardedFor() != null) {
            request.header("X-Forwarded-For", envelope.forwardedFor());
        }
        HttpResponse<Void> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            markDown("no answer: " + e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        int status = response.statusCode();
        if (status == 502 || status == 503 || status == 504) {
            markDown("HTTP " + status);
            return false;
        }
        upstreamDown = false;
        if (status / 100 == 2) {
            countEnvelope("delivered");
        } else if (status == 429) {
            rateLimits.record(envelope.publicKey(), String.join(",", response.headers().allValues(RATE_LIMITS)),
                    response.headers().firstValue("Retry-After").orElse(null), clock.instant());
            countEnvelope("upstream_rate_limited");
        } else {
            countEnvelope("refused_" + status / 100 + "xx");
            LOG.warn("upstream refused an envelope of project {}: HTTP {}", envelope.projectId(), status);
        }
        return true;
    }

    private void markDown(String why) {
        if (!upstreamDown) {
            LOG.warn("upstream {} unavailable ({}); retrying, spooling what the queue cannot hold", config.base(),
                    why);
        }
        upstreamDown = true;
    }

    /**
     * Sends the spool oldest first while the upstream answers; stops at the first failure, for the next round. The
     * bucket is listed each second while this relay has spooled or found something, else every 30 s (another
     * replica's spool, or one left by a relay that is gone).
     */
    private void sendSpool() {
        long now = clock.millis();
        if (stopping || now < nextSpoolAttempt
                || spoolDepth.get() == 0 && now - lastSpoolListing < SPOOL_IDLE_LISTING_MILLIS) {
            return;
        }
        lastSpoolListing = now;
        try {
            List<String> keys = store.listObjects(SPOOL_PREFIX);
            spoolDepth.set(keys.size());
            spoolOldestMillis.set(keys.isEmpty() ? 0 : Math.max(0, clock.millis() - arrival(keys.get(0))));
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
                UpstreamEnvelope envelope = UpstreamEnvelope.fromSpool(spooled.get());
                if (!attempt(envelope) && !expired(envelope)) {
                    // the upstream is still down: wait longer each time
                    meters.counter("relay.upstream.retries").increment();
                    nextSpoolAttempt = clock.millis() + backoff.delay(++spoolFailures).toMillis();
                    return;
                }
                spoolFailures = 0;
                store.deleteObject(key);
                release(key);
                spoolDepth.decrementAndGet();
            }
        } catch (RuntimeException e) {
            if (!stopping) {
                LOG.warn("could not send the upstream spool: {}", e.toString());
            }
        }
    }

    /**
     * Claims a spooled envelope for this relay, or renews its claim: an {@link ObjectLease}
     * {@code upstream-spool-claims/{name}.} of {@code relay.upstream.spool-claim}. A claim another relay holds is left
     * to it: it may still be sending. So replicas draining one spool send each envelope once, unless a holder dies
     * between sending and deleting, when the envelope is sent again a claim or two later (at least once, never lost).
     */
    private boolean claim(String key) {
        ObjectLease lease = claims.computeIfAbsent(key, k -> new ObjectLease(store,
                CLAIM_PREFIX + k.substring(SPOOL_PREFIX.length()) + ".", config.spoolClaim(), clock, claimant));
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

    private static long arrival(String key) {
        String name = key.substring(SPOOL_PREFIX.length());
        try {
            return Long.parseLong(name.substring(0, name.indexOf('-')));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private void flushReports() {
        for (UpstreamEnvelope report : reports.drain(clock.instant())) {
            if (!offer(report)) {
                LOG.debug("client report for project {} dropped: the upstream queue is full", report.projectId());
            }
        }
    }

    /** Counts an item dropped before it could be queued (the caller keeps the SDK's answer). */
    private void countItem(String type, String outcome) {
        meters.counter("relay.upstream.items", "type", type.length() > 32 ? "unknown" : type, "outcome", outcome)
                .increment();
    }

    private void countEnvelope(String outcome) {
        meters.counter("relay.upstream.envelopes", "outcome", outcome).increment();
    }

    /** On shutdown what waits in memory, or is being retried, goes to the spool for the next relay to send. */
    @PreDestroy
    void stop() throws InterruptedException {
        stopping = true;
        // a spool round still sending when the bucket closes could deliver an envelope it can no longer delete
        background.shutdown();
        background.awaitTermination(30, TimeUnit.SECONDS);
        for (Thread sender : senders) {
            sender.join(config.timeoutFor(0).toMillis() * 4);
        }
        List<UpstreamEnvelope> left = new ArrayList<>(inFlight.keySet());
        queue.drainTo(left);
        for (UpstreamEnvelope envelope : left) {
            try {
                spool(envelope);
            } catch (ArchiveUnavailableException e) {
                LOG.error("lost an envelope of project {} at shutdown: the spool is unavailable ({})",
                        envelope.projectId(), e.getMessage());
            }
        }
        if (!left.isEmpty()) {
            LOG.info("spooled {} envelopes for the upstream at shutdown", left.size());
        }
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
