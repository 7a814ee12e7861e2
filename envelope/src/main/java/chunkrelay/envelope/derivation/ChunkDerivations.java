package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.derivation.ChunkStages;
import chunkrelay.envelope.forward.ChunkForwarder;
import chunkrelay.envelope.links.LinkedSpans;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.recovery.UnderivedSearch;
import chunkrelay.envelope.rollups.OpenMinutes;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.DueWork;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveResult;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.translate.ChunkTranslator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Derives the OTLP form of chunks whose Sentry form is archived, after their link window (at once, before the
 * SDK's answer, with a window of 0): link with the spans known by then (this relay's index and the span log), write
 * the OTLP object once (a conditional write, so that when two replicas race only one writes and only that one
 * forwards), then forward it. The window, the recovery pass, a graceful stop and replay all derive through
 * {@link #derive}.
 *
 * <p>A chunk is translated without spans when it arrives and waits in that form, compressed ({@link PreparedChunk},
 * a third to a twelfth of the normalised chunk), while the pending chunks stay under
 * {@code relay.links.max-pending-bytes}; when its window ends its samples are linked
 * ({@link chunkrelay.translate.SampleLinker}), so its JSON is parsed once. Beyond the budget only its key waits, and
 * its Sentry form is read back and translated when the window ends. Nothing pending is lost with the process: a
 * recovery pass ({@link UnderivedSearch}) derives every recent chunk whose Sentry form is older than its window and
 * whose OTLP form is missing; it runs at start, and on a peer that sees a relay's heartbeat go stale
 * ({@link chunkrelay.storage.ArchiveHeartbeats} under {@code derivers/}). On a graceful stop the chunks still waiting
 * are derived at once, with the spans known then.
 *
 * <p>Windows, retries and recovery rounds are kept by the time of the injected clock ({@link DueWork}); a scheduler
 * thread hands out what is due every {@value #TICK_MILLIS} ms, and a test on a test clock calls {@link #runDue}.
 */
@Singleton
public class ChunkDerivations {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkDerivations.class);
    /** The reason of a chunk the relay failed on: its own bug, not one of Relay's reasons for a bad chunk. */
    public static final String INTERNAL_ERROR = "internal_error";
    private static final Duration RETRY = Duration.ofSeconds(5);
    static final long TICK_MILLIS = 100;
    /** Without a window, the search at start waits at most this long on the clock (the recovery interval if less). */
    private static final Duration FIRST_SEARCH = Duration.ofSeconds(2);

    private final LinksConfig config;
    private final ChunkArchive archive;
    private final ChunkForwarder forwarder;
    private final MeterRegistry meters;
    private final ScheduledThreadPoolExecutor scheduler;
    private final BackgroundWork work;
    private final DueWork due;
    private final AtomicBoolean handingOut = new AtomicBoolean();
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong pendingBytes = new AtomicLong();
    private final OtlpForms forms;
    private final UnderivedSearch search;
    private final OpenMinutes openMinutes;
    private volatile boolean stopping;
    /** A chunk could not be derived at stop: the heartbeat stays, so that a peer searches for it. */
    private volatile boolean leftAtStop;

    /** A chunk waiting for its window; {@code prepared} is null when it is to be read back from the archive. */
    private record Pending(long projectId, ArchiveKey key, PreparedChunk prepared, long bytes,
                           long firstSampleNanos, long lastSampleNanos) {
    }

    @Inject
    public ChunkDerivations(LinksConfig config, ChunkArchive archive, ChunkProcessor processor,
                            ChunkTranslator translator, LinkedSpans spans, ChunkForwarder forwarder,
                            ProjectRegistry projects, RelayVersion version, OpenMinutes openMinutes,
                            MeterRegistry meters, Clock clock, BackgroundWork work) {
        this.config = config;
        this.openMinutes = openMinutes;
        this.archive = archive;
        this.forwarder = forwarder;
        this.meters = meters;
        this.due = new DueWork(clock);
        this.work = work;
        this.scheduler = work.timer("chunk-derivation", config.threads());
        work.atStop(BackgroundWork.Stage.DERIVATION, "chunk derivations", this::stop);
        RelayMeter.DERIVATIONS_PENDING.gauge(meters, pending, Map::size);
        RelayMeter.DERIVATIONS_PENDING_BYTES.gauge(meters, pendingBytes, AtomicLong::get);
        for (String when : List.of("window", "recovery", "stop")) {
            RelayMeter.CHUNKS_DERIVED.counter(meters, when);
        }
        RelayMeter.DERIVATIONS_DUPLICATES.counter(meters);
        this.forms = new OtlpForms(archive, processor, translator, spans, projects, version, meters);
        this.search = new UnderivedSearch(config, archive, meters, clock, due, pending::containsKey,
                (projectId, key, forward) -> derive(projectId, key, null, "recovery", forward));
        RelayMeter.DERIVATIONS_FAILURES.counter(meters);
    }

    /**
     * Starts handing out due work, once: at the server's start, or when a chunk first waits, for its
     * window or for a retry (so that a command line, which never holds a chunk in its window, starts no thread unless
     * a derivation fails).
     */
    private void startHandingOut() {
        if (handingOut.compareAndSet(false, true)) {
            scheduler.scheduleWithFixedDelay(this::handOutDue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Runs, in the calling thread, the windows, retries and recovery rounds the clock has reached. */
    public void runDue() {
        due.takeDue().forEach(Runnable::run);
    }

    /** The scheduler thread's part: what is due runs on the pool, so that windows ending together derive together. */
    private void handOutDue() {
        if (work.held()) {
            return;
        }
        try {
            due.takeDue().forEach(scheduler::execute);
        } catch (RejectedExecutionException e) {
            // stopping: stop() derives what still waits
        }
    }

    /**
     * In the server only (the command line derives what it needs itself): a heartbeat and a search of the archive at
     * start, which recovers what this relay, restarted, or any relay that died left underived; then a heartbeat every
     * recovery interval, with a search only when another relay stopped beating ({@link UnderivedSearch}). Without a
     * window nothing waits, so there is no heartbeat: one search at start finds what a relay killed between a chunk's
     * two writes left underived.
     */
    @EventListener
    void onStartup(ServerStartupEvent event) {
        if (config.deferred()) {
            search.armAtStart();
        } else {
            Duration first = config.recoveryInterval().compareTo(FIRST_SEARCH) < 0
                    ? config.recoveryInterval() : FIRST_SEARCH;
            due.after(first, search::searchAtStart);
        }
        startHandingOut();
    }

    /**
     * Called before a chunk's Sentry form is archived to wait for its window: makes sure this relay's heartbeat
     * exists, so that if it dies with the chunk waiting, a peer knows to search for it.
     *
     * @throws ArchiveUnavailableException when the heartbeat cannot be written
     */
    public void beforeWaiting() {
        if (config.deferred()) {
            search.beforeWaiting();
        }
    }

    /**
     * Derives the chunk's OTLP form when its window ends (with no window, at once). Translates it now, without spans,
     * and keeps that ({@link PreparedChunk}) while the pending chunks stay within
     * {@code relay.links.max-pending-bytes}; beyond it only the key waits, and the Sentry form is read back.
     *
     * @param metadata the archived forms' user metadata
     */
    public void schedule(long projectId, ArchiveKey key, ProfileChunk chunk, Map<String, String> metadata,
                         Instant receivedAt) {
        if (!config.deferred()) {
            deriveAtReceipt(projectId, key, chunk, metadata);
            return;
        }
        PreparedChunk prepared = pendingBytes.get() < config.pendingBytesLimit()
                ? forms.prepare(projectId, chunk, metadata) : null;
        long bytes = prepared == null ? 0 : prepared.heapBytes();
        if (prepared != null && pendingBytes.addAndGet(bytes) > config.pendingBytesLimit()) {
            pendingBytes.addAndGet(-bytes);
            prepared = null;
            bytes = 0;
        }
        Pending waiting = new Pending(projectId, key, prepared, bytes, chunk.firstSampleNanos(),
                chunk.lastSampleNanos());
        pending.put(key.stem(), waiting);
        openMinutes.waiting(key, chunk.firstSampleNanos(), chunk.lastSampleNanos());
        due.at(receivedAt.plus(config.window()), () -> deriveWaiting(waiting, "window"));
        startHandingOut();
    }

    /**
     * No window: the chunk in hand is translated with the spans known now and derived in the caller's thread, so the
     * answer follows both forms. A derivation the archive fails waits like any other, read back when retried.
     */
    private void deriveAtReceipt(long projectId, ArchiveKey key, ProfileChunk chunk, Map<String, String> metadata) {
        Pending waiting = new Pending(projectId, key, null, 0, chunk.firstSampleNanos(), chunk.lastSampleNanos());
        pending.put(key.stem(), waiting);
        deriveWaiting(waiting, "window", () -> store(key,
                ChunkStages.timed(meters, "translate", () -> forms.translated(projectId, chunk, metadata)),
                "window", true));
    }

    private void deriveWaiting(Pending waiting, String when) {
        deriveWaiting(waiting, when, () -> derive(waiting.projectId(), waiting.key(), waiting.prepared(), when, true));
    }

    private void deriveWaiting(Pending waiting, String when, Runnable derivation) {
        if (pending.get(waiting.key().stem()) != waiting) {
            return;
        }
        try {
            derivation.run();
            release(waiting);
        } catch (ArchiveUnavailableException e) {
            RelayMeter.DERIVATIONS_FAILURES.counter(meters).increment();
            if (stopping) {
                leftAtStop = true;
                release(waiting);
                return;
            }
            LOG.warn("deriving chunk {} of project {} failed, retrying in {}: {}", waiting.key().chunkId(),
                    waiting.projectId(), RETRY, e.getMessage());
            due.after(RETRY, () -> deriveWaiting(waiting, when));
            // without a window nothing else starts the hand-out, and a retry nobody hands out never runs
            startHandingOut();
        } catch (RuntimeException | StackOverflowError e) {
            // the relay's own bug, not a bad chunk: counted as Relay counts item outcomes; the Sentry form stays
            // archived, underived, for a recovery pass of a fixed relay to derive
            RelayMeter.DERIVATIONS_FAILURES.counter(meters).increment();
            RelayMeter.CHUNKS_REJECTED.counter(meters, INTERNAL_ERROR).increment();
            LOG.error("deriving chunk {} of project {} failed; its Sentry form stays archived", waiting.key().chunkId(),
                    waiting.projectId(), e);
            release(waiting);
        }
    }

    private void release(Pending waiting) {
        if (pending.remove(waiting.key().stem(), waiting)) {
            pendingBytes.addAndGet(-waiting.bytes());
            openMinutes.released(waiting.key(), waiting.firstSampleNanos(), waiting.lastSampleNanos());
        }
    }

    /**
     * Links, writes the OTLP object once and forwards it.
     *
     * @param prepared the chunk translated at receipt, or null to read its Sentry form back from the archive
     * @param forward  whether to hand it to the forwarder (replay sends what it derives itself)
     */
    void derive(long projectId, ArchiveKey key, PreparedChunk prepared, String when, boolean forward) {
        store(key, prepared != null ? forms.link(projectId, prepared) : forms.fromArchive(projectId, key), when,
                forward);
    }

    /** Writes a derived OTLP form once and forwards it; nothing for a chunk whose Sentry form is gone (null). */
    private void store(ArchiveKey key, OtlpForms.Derived derived, String when, boolean forward) {
        if (derived == null) {
            return;
        }
        ArchiveResult result = derived.otlp() != null
                ? archive.storeDerivedOtlp(key, derived.otlp(), derived.metadata())
                : archive.storeCompressedDerivedOtlp(key, derived.stored(), derived.metadata());
        if (result == ArchiveResult.DUPLICATE) {
            // another replica, or an earlier attempt of ours, derived and forwarded it
            RelayMeter.DERIVATIONS_DUPLICATES.counter(meters).increment();
            return;
        }
        LinkMeters.record(meters, derived.linked(), derived.unlinked(), derived.ambiguous());
        // the views of the newest minutes read it from there rather than from the archive
        openMinutes.derived(key, derived.metadata(), derived.otlp() != null ? derived.otlp() : derived.stored(),
                derived.otlp() == null);
        RelayMeter.CHUNKS_DERIVED.counter(meters, when).increment();
        if (forward) {
            ChunkStages.timed(meters, "forward", () -> {
                if (forwarder.forwards()) {
                    forwarder.forward(key, derived.otlp() != null ? derived.otlp()
                            : archive.decompress(derived.stored()));
                }
                return null;
            });
        }
    }

    /**
     * Derives, without forwarding, the chunks of a project and days whose OTLP form is missing and whose window has
     * passed, so that {@code replay} finds and sends them. Returns how many it derived.
     *
     * @throws ArchiveUnavailableException when the archive cannot be read or written
     */
    public int deriveForReplay(String projectId, LocalDate from, LocalDate to) {
        return search.deriveForReplay(projectId, from, to);
    }

    /** One search of the archive for chunks left underived; returns how many it derived. */
    int recover() {
        return search.recover();
    }

    public int pendingCount() {
        return pending.size();
    }

    /**
     * Derives what still waits, within a budget. What is left keeps this relay's heartbeat, which a peer sees go
     * stale and recovers (or the next relay to start does); with nothing left the heartbeat is removed.
     */
    private void stop(Duration budget) {
        stopping = true;
        search.stop();
        scheduler.shutdownNow();
        long deadline = System.nanoTime() + budget.toNanos();
        List<Pending> waiting = new ArrayList<>(pending.values());
        for (Pending p : waiting) {
            if (System.nanoTime() > deadline) {
                LOG.warn("{} chunks left underived at stop; a peer or the next start derives them",
                        pending.size());
                return;
            }
            deriveWaiting(p, "stop");
        }
        if (pending.isEmpty() && !leftAtStop) {
            try {
                search.stopped();
            } catch (ArchiveUnavailableException e) {
                LOG.warn("could not remove this relay's heartbeat; a peer will search the archive: {}",
                        e.getMessage());
            }
        }
    }
}
