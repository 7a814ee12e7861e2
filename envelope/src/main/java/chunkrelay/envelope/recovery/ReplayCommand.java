package chunkrelay.envelope.recovery;

import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ObjectLease;
import chunkrelay.translate.export.DeliveryResult;
import chunkrelay.translate.export.OtlpHttpExporter;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Re-sends archived OTLP forms of a project's chunks in a date range to the OTLP endpoint: every chunk without a
 * delivery marker (failed, dropped, marked for replay, or never forwarded because the relay stopped first), with
 * the exporter's retry policy, {@code relay.otlp.workers} at a time. A 2xx writes the delivery marker, so running
 * it again sends nothing twice; each chunk is claimed first with the recovery pass's lease, so replays and recovery
 * passes on other replicas do not send it at the same time. Meant for a target that was down; chunks the running
 * relay's own forwarding queue holds at the same moment may still be sent twice.
 */
@Singleton
@Requires(property = "relay.otlp.endpoint")
public class ReplayCommand {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayCommand.class);

    private final ChunkArchive archive;
    private final OtlpHttpExporter exporter;
    private final DeliveryLeases leases;

    public ReplayCommand(ChunkArchive archive, OtlpHttpExporter exporter, RecoveryConfig recovery, Clock clock) {
        this.archive = archive;
        this.exporter = exporter;
        this.leases = new DeliveryLeases(archive.store(), recovery.lease(), clock);
    }

    /**
     * @throws ArchiveUnavailableException when the archive cannot be listed
     * @throws InterruptedException        when interrupted; chunks not finished stay for the next replay
     */
    public ReplaySummary replay(String projectId, LocalDate from, LocalDate to) throws InterruptedException {
        if (from.isAfter(to)) {
            throw new IllegalArgumentException("the range starts (" + from + ") after it ends (" + to + ")");
        }
        List<ArchivedChunk> chunks = archive.list(projectId, from, to);
        List<Callable<Outcome>> sends = new ArrayList<>();
        for (ArchivedChunk chunk : chunks) {
            if (!chunk.delivered()) {
                sends.add(() -> send(chunk));
            }
        }
        List<String> failures = new ArrayList<>();
        int deliveredMeanwhile = 0;
        ExecutorService workers = Executors.newFixedThreadPool(exporter.settings().workers(), runnable -> {
            Thread thread = new Thread(runnable, "otlp-replay");
            thread.setDaemon(true);
            return thread;
        });
        try {
            for (Future<Outcome> sent : workers.invokeAll(sends)) {
                Outcome outcome = sent.get();
                if (outcome.failure() != null) {
                    failures.add(outcome.failure());
                } else if (!outcome.sent()) {
                    deliveredMeanwhile++;
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("replay failed unexpectedly", e.getCause());
        } finally {
            workers.shutdownNow();
        }
        int skipped = chunks.size() - sends.size() + deliveredMeanwhile;
        return new ReplaySummary(projectId, from, to, chunks.size(), skipped,
                sends.size() - deliveredMeanwhile - failures.size(), failures.size(), List.copyOf(failures));
    }

    /**
     * What became of one chunk.
     *
     * @param sent    this replay delivered it
     * @param failure its stem and why it was not delivered, or null
     */
    private record Outcome(boolean sent, String failure) {
        static final Outcome SENT = new Outcome(true, null);
        static final Outcome DELIVERED_MEANWHILE = new Outcome(false, null);

        static Outcome failed(String failure) {
            return new Outcome(false, failure);
        }
    }

    /**
     * Sends one chunk. It is claimed first, as the recovery pass claims it, so that replays and recovery passes on
     * any replica send it once; one that another claimant delivered meanwhile is not sent again.
     */
    private Outcome send(ArchivedChunk chunk) throws InterruptedException {
        String stem = chunk.key().stem();
        ObjectLease lease = leases.of(chunk.key());
        try {
            if (!lease.acquire()) {
                return Outcome.failed(stem + ": another replica or replay is sending it now; run replay again later");
            }
            if (archive.isDelivered(chunk.key())) {
                lease.release();
                return Outcome.DELIVERED_MEANWHILE;
            }
        } catch (ArchiveUnavailableException e) {
            return Outcome.failed(stem + ": cannot claim it: " + e.getMessage());
        }
        DeliveryResult result;
        try {
            result = exporter.export(archive.readOtlp(chunk));
        } catch (ArchiveUnavailableException e) {
            return Outcome.failed(stem + ": cannot read the archived OTLP form: " + e.getMessage());
        }
        try {
            if (result.delivered()) {
                archive.markDelivered(chunk.key());
                lease.release();
                return Outcome.SENT;
            }
            archive.markForReplay(chunk.key(), result.reason());
        } catch (ArchiveUnavailableException e) {
            LOG.warn("could not write the marker of chunk {}: {}", stem, e.getMessage());
            if (result.delivered()) {
                return Outcome.failed(stem + ": delivered, but the delivery marker could not be written (a later"
                        + " replay sends it again): " + e.getMessage());
            }
        }
        return Outcome.failed(stem + ": " + result.reason());
    }
}
