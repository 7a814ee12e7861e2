package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.forward.ChunkForwarder;
import chunkrelay.envelope.links.LinkedSpans;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.rollups.OpenMinutes;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.translate.ChunkTranslator;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;

/**
 * Derives the OTLP form of chunks whose Sentry form is archived, after their link window (at once, before the
 * SDK's answer, with a window of 0): link with the spans known by then (this relay's index and the span log), write
 * the OTLP object once and forward it ({@link DerivedWrites}). The window, the recovery pass, a graceful stop and
 * replay all derive here; a derivation the archive fails is retried, one the relay fails on is counted and left.
 *
 * <p>A chunk is translated without spans when it arrives and waits in that form ({@link PreparedChunk}) while the
 * pending chunks stay within their budget ({@link PendingChunks}); when its window ends its samples are linked
 * ({@link chunkrelay.translate.SampleLinker}), so its JSON is parsed once. Beyond the budget only its key waits, and
 * its Sentry form is read back and translated when the window ends. Nothing pending is lost with the process: the
 * recovery pass derives, through {@link #deriveUnderived}, every recent chunk whose Sentry form is older than its
 * window and whose OTLP form is missing. On a graceful stop the chunks still waiting are derived at once, with the
 * spans known then. Windows and retries are kept on the clock ({@link DerivationSchedule}).
 */
@Singleton
public class ChunkDerivations {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkDerivations.class);
    /** The reason of a chunk the relay failed on: its own bug, not one of Relay's reasons for a bad chunk. */
    public static final String INTERNAL_ERROR = "internal_error";
    private static final Duration RETRY = Duration.ofSeconds(5);

    /** What became of one chunk's derivation. */
    public enum Outcome {
        /** Its OTLP form is written (and handed to the forwarder when asked). */
        DERIVED,
        /** The relay failed on it: counted as {@value ChunkDerivations#INTERNAL_ERROR}, its Sentry form left. */
        FAILED
    }

    private final LinksConfig config;
    private final DerivationSchedule schedule;
    private final PendingChunks pending;
    private final OtlpForms forms;
    private final DerivedWrites writes;
    private final MeterRegistry meters;
    private volatile boolean stopping;
    /** A chunk could not be derived at stop: the heartbeat stays, so that a peer searches for it. */
    private volatile boolean leftAtStop;

    @Inject
    public ChunkDerivations(LinksConfig config, DerivationSchedule schedule, ChunkArchive archive,
                            ChunkProcessor processor, ChunkTranslator translator, LinkedSpans spans,
                            ChunkForwarder forwarder, ProjectRegistry projects, RelayVersion version,
                            OpenMinutes openMinutes, LinkedSampleCounts linkedSamples, MeterRegistry meters,
                            BackgroundWork work) {
        this.config = config;
        this.schedule = schedule;
        this.meters = meters;
        this.pending = new PendingChunks(config, openMinutes, meters);
        this.writes = new DerivedWrites(archive, forwarder, openMinutes, meters, linkedSamples);
        this.forms = new OtlpForms(archive, processor, translator, spans, projects, version, meters);
        RelayMeter.DERIVATIONS_FAILURES.counter(meters);
        work.atStop(BackgroundWork.Stage.DERIVATION, "chunk derivations", this::stop);
    }

    /**
     * Derives the chunk's OTLP form when its window ends (with no window, at once). Translates it now, without spans,
     * and keeps that ({@link PreparedChunk}) while the pending chunks stay within
     * {@code relay.links.max-pending-bytes}; beyond it only the key waits, and the Sentry form is read back.
     *
     * @param metadata the archived forms' user metadata
     * @param receipt  when and from which SDK it came: its window starts then, its link outcome is counted under it
     */
    public void schedule(long projectId, ArchiveKey key, ProfileChunk chunk, Map<String, String> metadata,
                         ChunkReceipt receipt) {
        if (!config.deferred()) {
            deriveAtReceipt(projectId, key, chunk, metadata, receipt);
            return;
        }
        PendingChunks.Pending waiting = pending.hold(projectId, key, chunk, receipt,
                (holdObject, translated) -> forms.prepare(projectId, chunk, metadata, holdObject, translated));
        schedule.at(receipt.receivedAt().plus(config.window()), () -> deriveWaiting(waiting, "window"));
        schedule.start();
    }

    /**
     * No window: the chunk in hand is translated with the spans known now and derived in the caller's thread, so the
     * answer follows both forms. A derivation the archive fails waits like any other, read back when retried.
     */
    private void deriveAtReceipt(long projectId, ArchiveKey key, ProfileChunk chunk, Map<String, String> metadata,
                                 ChunkReceipt receipt) {
        PendingChunks.Pending waiting = pending.holdKey(projectId, key, chunk, receipt);
        deriveWaiting(waiting, "window", () -> writes.store(projectId, key, RelayMeter.CHUNK_STAGE
                .timer(meters, "translate").record(() -> forms.translated(projectId, chunk, metadata, receipt)),
                "window", true));
    }

    private void deriveWaiting(PendingChunks.Pending waiting, String when) {
        deriveWaiting(waiting, when, () -> derive(waiting.projectId(), waiting.key(), waiting.prepared(),
                waiting.receipt(), when, true));
    }

    private void deriveWaiting(PendingChunks.Pending waiting, String when, Runnable derivation) {
        if (!pending.holds(waiting)) {
            return;
        }
        try {
            outcome(waiting.projectId(), waiting.key(), derivation);
            pending.release(waiting);
        } catch (ArchiveUnavailableException e) {
            if (stopping) {
                leftAtStop = true;
                pending.release(waiting);
                return;
            }
            LOG.warn("deriving chunk {} of project {} failed, retrying in {}: {}", waiting.key().chunkId(),
                    waiting.projectId(), RETRY, e.getMessage());
            schedule.after(RETRY, () -> deriveWaiting(waiting, when));
            // without a window nothing else starts the hand-out, and a retry nobody hands out never runs
            schedule.start();
        }
    }

    /**
     * The one place where a derivation's outcome is decided, whichever way the chunk came (receipt, window, stop,
     * recovery, replay). A failing archive is no outcome: the caller tries again (the window path on its clock, a
     * search in its next round, replay when run again). Anything else is the relay's own bug, not a bad chunk: counted
     * as Relay counts item outcomes ({@value #INTERNAL_ERROR}), and the Sentry form stays archived, underived, for a
     * recovery pass of a fixed relay to derive.
     *
     * @throws ArchiveUnavailableException when the archive failed the derivation
     */
    private Outcome outcome(long projectId, ArchiveKey key, Runnable derivation) {
        try {
            derivation.run();
            return Outcome.DERIVED;
        } catch (ArchiveUnavailableException e) {
            RelayMeter.DERIVATIONS_FAILURES.counter(meters).increment();
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            RelayMeter.DERIVATIONS_FAILURES.counter(meters).increment();
            RelayMeter.CHUNKS_REJECTED.counter(meters, INTERNAL_ERROR).increment();
            LOG.error("deriving chunk {} of project {} failed; its Sentry form stays archived", key.chunkId(),
                    projectId, e);
            return Outcome.FAILED;
        }
    }

    /**
     * Links, writes the OTLP object once and forwards it.
     *
     * @param prepared the chunk translated at receipt, or null to read its Sentry form back from the archive
     * @param receipt  how the chunk path saw it, or null when this relay did not receive it (recovery, replay)
     * @param forward  whether to hand it to the forwarder (replay sends what it derives itself)
     */
    private void derive(long projectId, ArchiveKey key, PreparedChunk prepared, ChunkReceipt receipt, String when,
                        boolean forward) {
        writes.store(projectId, key, prepared != null ? forms.link(projectId, prepared, receipt)
                : forms.fromArchive(projectId, key, receipt), when, forward);
    }

    /**
     * Derives a chunk that the recovery pass or replay found left underived, from its archived Sentry form; one
     * this relay waits for itself is left to its window.
     *
     * @param forward whether to hand it to the forwarder (replay sends what it derives itself)
     * @throws ArchiveUnavailableException when the archive cannot be read or written
     */
    public Outcome deriveUnderived(long projectId, ArchiveKey key, boolean forward) {
        return outcome(projectId, key, () -> derive(projectId, key, null, null, "recovery", forward));
    }

    /** Whether this relay itself waits for the chunk of this stem: a search leaves it alone. */
    public boolean waitsFor(String stem) {
        return pending.waitsFor(stem);
    }

    public int pendingCount() {
        return pending.size();
    }

    /**
     * Derives what still waits, within a budget, once (later calls only answer). Returns whether nothing was left
     * underived: what is left keeps this relay's heartbeat, which a peer sees go stale and recovers (or the next
     * relay to start does).
     */
    public synchronized boolean stop(Duration budget) {
        if (!stopping) {
            stopping = true;
            schedule.stop();
            long deadline = System.nanoTime() + budget.toNanos();
            for (PendingChunks.Pending p : pending.all()) {
                if (System.nanoTime() > deadline) {
                    LOG.warn("{} chunks left underived at stop; a peer or the next start derives them",
                            pending.size());
                    break;
                }
                deriveWaiting(p, "stop");
            }
        }
        return pending.size() == 0 && !leftAtStop;
    }
}
