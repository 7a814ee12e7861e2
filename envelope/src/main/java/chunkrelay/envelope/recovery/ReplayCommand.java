package chunkrelay.envelope.recovery;

import chunkrelay.envelope.forward.OtlpConfig;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.export.DeliveryResult;
import chunkrelay.translate.export.OtlpHttpExporter;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Re-sends archived OTLP forms of a project's chunks in a date range to the OTLP endpoint: every chunk without a
 * delivery marker (failed, dropped, marked for replay, or never forwarded because the relay stopped first), with
 * the exporter's retry policy, {@code relay.otlp.workers} at a time; chunks the endpoint refused for good are sent
 * again only when asked. A 2xx writes the delivery marker, so running it again sends nothing twice; a refusal for
 * good writes the refusal marker with the endpoint's reason. Each chunk is claimed first with the recovery pass's
 * lease, so replays and recovery passes on other replicas do not send it at the same time. Meant for a target that
 * was down; chunks the running relay's own forwarding queue holds at the same moment may still be sent twice.
 *
 * <p>{@link #plan} comes first and sends nothing: with {@code relay.otlp.max-age} set it counts the chunks whose
 * profiles an endpoint with that acceptance window will refuse (one metadata read per chunk to send).
 */
@Singleton
@Requires(property = "relay.otlp.endpoint")
public class ReplayCommand {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayCommand.class);

    private final ChunkArchive archive;
    private final OtlpHttpExporter exporter;
    private final DeliveryLeases leases;
    private final Optional<Duration> maxAge;
    private final Clock clock;
    private final BackgroundWork work;

    public ReplayCommand(ChunkArchive archive, OtlpHttpExporter exporter, RecoveryConfig recovery, OtlpConfig otlp,
                         Clock clock, BackgroundWork work) {
        this.archive = archive;
        this.exporter = exporter;
        this.leases = new DeliveryLeases(archive.store(), recovery.lease(), clock);
        this.maxAge = Optional.ofNullable(otlp.maxAge());
        this.clock = clock;
        this.work = work;
    }

    /** {@link #plan} without the refused chunks, then {@link #replay(ReplayPlan)}. */
    public ReplaySummary replay(String projectId, LocalDate from, LocalDate to) throws InterruptedException {
        return replay(plan(projectId, from, to, false));
    }

    /**
     * What a replay of the range would send, and how much of it is older than {@code relay.otlp.max-age}.
     *
     * @param includeRefused also send the chunks the endpoint refused for good before
     * @throws ArchiveUnavailableException when the archive cannot be listed
     */
    public ReplayPlan plan(String projectId, LocalDate from, LocalDate to, boolean includeRefused) {
        if (from.isAfter(to)) {
            throw new IllegalArgumentException("the range starts (" + from + ") after it ends (" + to + ")");
        }
        List<ArchivedChunk> chunks = archive.list(projectId, from, to);
        List<ArchivedChunk> toSend = new ArrayList<>();
        int delivered = 0;
        int refused = 0;
        for (ArchivedChunk chunk : chunks) {
            if (chunk.delivered()) {
                delivered++;
            } else if (chunk.refused() && !includeRefused) {
                refused++;
            } else {
                toSend.add(chunk);
            }
        }
        int older = 0;
        if (maxAge.isPresent()) {
            long oldestAccepted = TimeBuckets.nanos(clock.instant().minus(maxAge.get()));
            for (ArchivedChunk chunk : toSend) {
                String first = archive.metadata(chunk).get(ChunkMetadata.FIRST_SAMPLE_NS);
                if (first != null && Long.parseLong(first) < oldestAccepted) {
                    older++;
                }
            }
        }
        return new ReplayPlan(projectId, from, to, chunks.size(), delivered, refused, List.copyOf(toSend), maxAge,
                older);
    }

    /**
     * Sends what the plan holds.
     *
     * @throws InterruptedException when interrupted; chunks not finished stay for the next replay
     */
    public ReplaySummary replay(ReplayPlan plan) throws InterruptedException {
        List<Callable<Outcome>> sends = new ArrayList<>();
        for (ArchivedChunk chunk : plan.toSend()) {
            sends.add(() -> send(chunk));
        }
        List<String> failures = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        int delivered = 0;
        int deliveredMeanwhile = 0;
        ExecutorService workers = work.pool("otlp-replay", exporter.settings().workers(), new LinkedBlockingQueue<>());
        try {
            for (Future<Outcome> sent : workers.invokeAll(sends)) {
                Outcome outcome = sent.get();
                switch (outcome.kind()) {
                    case SENT -> delivered++;
                    case DELIVERED_MEANWHILE -> deliveredMeanwhile++;
                    case REFUSED -> refusals.add(outcome.detail());
                    case FAILED -> failures.add(outcome.detail());
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("replay failed unexpectedly", e.getCause());
        } finally {
            workers.shutdownNow();
        }
        return new ReplaySummary(plan, deliveredMeanwhile, delivered, refusals.size(), failures.size(),
                List.copyOf(refusals), List.copyOf(failures));
    }

    private enum Kind { SENT, DELIVERED_MEANWHILE, REFUSED, FAILED }

    /**
     * What became of one chunk.
     *
     * @param detail its stem and why it was refused or not delivered, or null
     */
    private record Outcome(Kind kind, String detail) {
        static final Outcome SENT = new Outcome(Kind.SENT, null);
        static final Outcome DELIVERED_MEANWHILE = new Outcome(Kind.DELIVERED_MEANWHILE, null);

        static Outcome failed(String failure) {
            return new Outcome(Kind.FAILED, failure);
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
            if (result.refused()) {
                archive.markRefused(chunk.key(), result.reason());
                lease.release();
                return new Outcome(Kind.REFUSED, stem + ": " + result.reason());
            }
            archive.markForReplay(chunk.key(), result.reason());
        } catch (ArchiveUnavailableException e) {
            LOG.warn("could not write the marker of chunk {}: {}", stem, e.getMessage());
            if (result.delivered()) {
                return Outcome.failed(stem + ": delivered, but the delivery marker could not be written (a later"
                        + " replay sends it again): " + e.getMessage());
            }
        }
        return result.refused() ? new Outcome(Kind.REFUSED, stem + ": " + result.reason())
                : Outcome.failed(stem + ": " + result.reason());
    }
}
