package chunkrelay.envelope.upstream;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.retry.Backoff;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ObjectStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Named;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Passes envelopes on to the upstream Sentry, off the request path: applies the upstream's cached 429 limits, then
 * acknowledges an envelope once it is queued, in memory while the {@link UpstreamQueue} has room, else in the
 * {@link UpstreamSpool}; when neither takes it the SDK gets 503. Senders make one attempt each
 * ({@link UpstreamClient}) and spool what the upstream did not take for a network reason; an envelope is given up
 * after {@code relay.upstream.max-age}. Created at start-up ({@code @Context}) and started with the server, so that
 * a restarted relay sends its spool from its first second; not in the command lines' {@code cli} environment, which
 * leave it to relays.
 */
@Context
@Requires(notEnv = Environment.CLI)
public class UpstreamForwarder implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamForwarder.class);
    private static final Duration SPOOL_ROUND = Duration.ofSeconds(1);
    private static final Duration MIN_REPORT_INTERVAL = Duration.ofMillis(100);
    /** How often a sender retrying in memory reads the clock for the end of its wait. */
    private static final long RETRY_POLL_NANOS = ClockedSchedule.POLL.toNanos();

    private final UpstreamConfig config;
    private final MeterRegistry meters;
    private final Clock clock;
    private final UpstreamRateLimits rateLimits = new UpstreamRateLimits();
    private final ClientReports reports = new ClientReports();
    private final UpstreamClient client;
    private final UpstreamSpool spool;
    private final UpstreamQueue queue;
    private final Map<UpstreamEnvelope, Boolean> inFlight = new ConcurrentHashMap<>();
    private final List<Thread> senders = new CopyOnWriteArrayList<>();
    /** The spool's rounds and the client reports' flushes, on the clock. */
    private final ClockedSchedule background;
    private final BackgroundWork work;
    /** From retry-initial, growing by half, up to retry-max, for envelopes retried in memory. */
    private final Backoff backoff;
    private volatile boolean stopping;

    public UpstreamForwarder(UpstreamConfig config, @Named(UpstreamHttpFactory.UPSTREAM) HttpClient http,
                             ObjectStore store, MeterRegistry meters, Clock clock, BackgroundWork work) {
        this.config = config;
        this.meters = meters;
        this.clock = clock;
        this.work = work;
        this.backoff = new Backoff(config.retryInitial(), config.retryMax(), 1.5);
        this.client = new UpstreamClient(config, http, rateLimits, meters, clock);
        this.spool = new UpstreamSpool(config, store, meters, clock,
                envelope -> client.attempt(envelope) || expired(envelope));
        this.queue = new UpstreamQueue(config, meters);
        this.background = work.schedule("upstream-spool");
        work.atStop(BackgroundWork.Stage.UPSTREAM, "upstream forwarding", this::stop);
    }

    /** The senders, the spool's rounds and the client reports start with the server. */
    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        if (config.enabled()) {
            for (int i = 0; i < Math.max(1, config.senders()); i++) {
                senders.add(work.start("upstream-sender-" + (i + 1), this::sendLoop));
            }
            background.every(SPOOL_ROUND, SPOOL_ROUND, spool::sendRound);
            Duration reports = Collections.max(List.of(config.clientReportInterval(), MIN_REPORT_INTERVAL));
            background.every(reports, reports, this::flushReports);
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
                countEnvelope("rate_limited");
                throw UpstreamRateLimits.refusal(applied, now);
            }
            return;
        }
        UpstreamEnvelope queued = envelope.withItems(kept);
        if (!offer(queued)) {
            spoolOrRefuse(queued);
        }
        kept.forEach(item -> countItem(item.type(), "queued"));
    }

    private boolean offer(UpstreamEnvelope envelope) {
        return !stopping && queue.offer(envelope);
    }

    private void spoolOrRefuse(UpstreamEnvelope envelope) {
        try {
            spool.add(envelope);
        } catch (ArchiveUnavailableException e) {
            countEnvelope("refused_queue_full");
            throw RelayError.cannotQueue("the upstream queue is full and its spool unavailable; retry later", 60);
        }
    }

    private void sendLoop() {
        while (!stopping) {
            UpstreamEnvelope envelope;
            try {
                envelope = queue.poll(200);
            } catch (InterruptedException e) {
                return;
            }
            if (envelope == null) {
                continue;
            }
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
            if (client.attempt(envelope) || expired(envelope)) {
                return true;
            }
            try {
                spool.add(envelope);
                return true;
            } catch (ArchiveUnavailableException e) {
                LOG.warn("could not spool an envelope for the upstream, retrying it in memory: {}", e.getMessage());
            }
            RelayMeter.UPSTREAM_RETRIES.counter(meters).increment();
            // the next attempt is due on the clock, so that a test moves a test clock instead of waiting
            Instant due = clock.instant().plus(backoff.delay(++failures));
            while (!stopping && clock.instant().isBefore(due)) {
                LockSupport.parkNanos(RETRY_POLL_NANOS);
            }
        }
        return false;
    }

    private boolean expired(UpstreamEnvelope envelope) {
        if (clock.instant().isBefore(envelope.receivedAt().plus(config.maxAge()))) {
            return false;
        }
        countEnvelope("expired");
        envelope.items().forEach(item -> reports.discarded(envelope.projectId(), envelope.publicKey(),
                "network_error", DataCategory.reportedAs(item.type()), 1));
        LOG.warn("dropped an envelope of project {} not delivered upstream within {}", envelope.projectId(),
                config.maxAge());
        return true;
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
        RelayMeter.UPSTREAM_ITEMS.counter(meters, type.length() > 32 ? "unknown" : type, outcome)
                .increment();
    }

    private void countEnvelope(String outcome) {
        RelayMeter.UPSTREAM_ENVELOPES.counter(meters, outcome).increment();
    }

    /**
     * On shutdown what waits in memory, or is being retried, goes to the spool for the next relay to send, however
     * little of the shutdown budget is left.
     */
    private void stop(Duration budget) throws InterruptedException {
        long until = System.nanoTime() + budget.toNanos();
        stopping = true;
        spool.stop();
        // a spool round still sending when the bucket closes could deliver an envelope it can no longer delete
        background.stop(budget);
        for (Thread sender : senders) {
            long remaining = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
            sender.join(Math.max(1, Math.min(config.timeoutFor(0).toMillis() * 4, remaining)));
        }
        List<UpstreamEnvelope> left = new ArrayList<>(inFlight.keySet());
        queue.drainTo(left);
        spool.addAtShutdown(left);
    }
}
