package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ChunkRejection;
import chunkrelay.chunk.ChunkRejectionReason;
import chunkrelay.chunk.ClientSdk;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.archive.ArchivedMetadata;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.ChunkReceipt;
import chunkrelay.envelope.derivation.LinkMeters;
import chunkrelay.envelope.health.HealthCounts;
import chunkrelay.envelope.health.SdkKey;
import chunkrelay.envelope.recovery.UnderivedSearch;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveResult;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.ProjectIds;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The chunk path: validate and normalise (Relay's rules) and archive the Sentry form; {@link ChunkDerivations} then
 * derives the OTLP form (links to the spans, the OTLP object, forwarding) when the link window
 * ({@code relay.links.window}) ends, so that spans sent after the chunk still link, or at once, before the answer,
 * with a window of 0. It returns only once the Sentry form is stored, so a 200 never loses a chunk; when the
 * archive cannot take it, the client gets 503 and retries. An invalid chunk is an outcome (logged and counted by
 * Relay's reason name), not an HTTP error, as in Relay. A valid chunk archived recently ({@link RecentChunks}) is
 * counted as a duplicate and goes no further than its parse.
 */
@Singleton
public class ArchivingChunkPipeline implements ChunkPipeline {
    private static final Logger LOG = LoggerFactory.getLogger(ArchivingChunkPipeline.class);

    private final ChunkProcessor processor;
    private final ChunkArchive archive;
    private final RelayVersion version;
    private final MeterRegistry meters;
    private final RecentChunks recent;
    private final Counter duplicates;
    private final Counter archiveDuplicates;
    private final Counter archiveFailures;
    private final Counter internalErrors;
    private final ChunkDerivations derivations;
    private final UnderivedSearch underived;
    private final ChunkTimeIndex timeIndex;
    private final HealthCounts health;

    public ArchivingChunkPipeline(ChunkProcessor processor, ChunkArchive archive, RelayVersion version,
                                  MeterRegistry meters, RecentChunks recent, ChunkDerivations derivations,
                                  UnderivedSearch underived, ChunkTimeIndex timeIndex, HealthCounts health) {
        this.processor = processor;
        this.archive = archive;
        this.version = version;
        this.meters = meters;
        this.recent = recent;
        this.derivations = derivations;
        this.underived = underived;
        this.timeIndex = timeIndex;
        this.health = health;
        LinkMeters.register(meters);
        RelayMeter.CHUNK_JSON_READS.functionCounter(meters, processor, ChunkProcessor::jsonReads);
        // every outcome's meter exists from the start, at zero, so dashboards and alerts see it before it happens
        for (ChunkRejectionReason reason : ChunkRejectionReason.values()) {
            RelayMeter.CHUNKS_REJECTED.counter(meters, reason.relayName());
        }
        this.internalErrors = RelayMeter.CHUNKS_REJECTED.counter(meters, ChunkDerivations.INTERNAL_ERROR);
        this.duplicates = RelayMeter.CHUNKS_DUPLICATES.counter(meters);
        this.archiveDuplicates = RelayMeter.ARCHIVE_DUPLICATES.counter(meters);
        this.archiveFailures = RelayMeter.ARCHIVE_FAILURES.counter(meters);
    }

    @Override
    public void accept(List<ProfileChunkItem> chunks) {
        for (ProfileChunkItem item : chunks) {
            ChunkOutcome outcome = timed("parse", () -> processor.process(item.payload(), item.header()));
            if (outcome instanceof ChunkOutcome.Failed failed) {
                quarantine(item, failed.cause());
            } else if (outcome instanceof ChunkOutcome.Rejected rejected) {
                reject(item, rejected.rejection());
            } else {
                ChunkOutcome.Accepted accepted = (ChunkOutcome.Accepted) outcome;
                if (recent.wasArchived(item.projectId(), accepted.chunk().chunkId().toHex())) {
                    // archived moments ago: the SDK retried or sent it twice; nothing to translate or store
                    duplicates.increment();
                } else {
                    store(item, accepted);
                }
            }
        }
    }

    private void reject(ProfileChunkItem item, ChunkRejection rejection) {
        RelayMeter.CHUNKS_REJECTED.counter(meters, rejection.reason().relayName()).increment();
        ChunkPeek peek = ChunkPeek.of(item.payload());
        health.rejected(item.projectId(), item.receivedAt(), refusedSdk(item, peek), rejection.reason().relayName());
        LOG.info("chunk rejected: project={} chunk_id={} event_id={} platform={} sdk={}/{} reason={} detail={}",
                item.projectId(), peek.chunkId(), item.envelope().eventId(),
                item.header().platform() != null ? item.header().platform() : peek.platform(),
                item.envelope().sdkName(),
                item.envelope().sdkVersion(), rejection.reason().relayName(), rejection.detail());
    }

    /**
     * A chunk the relay failed on is no client error: it is counted as {@code internal_error}, logged with the
     * stack trace, and its payload kept under the archive's quarantine prefix to be processed again after a fix.
     * The client still gets 200, as Relay answers item outcomes; only a failing archive makes it retry (503).
     */
    private void quarantine(ProfileChunkItem item, Throwable cause) {
        internalErrors.increment();
        ChunkPeek peek = ChunkPeek.of(item.payload());
        health.rejected(item.projectId(), item.receivedAt(), refusedSdk(item, peek), ChunkDerivations.INTERNAL_ERROR);
        String key;
        try {
            key = archive.quarantine(ProjectIds.format(item.projectId()), peek.chunkId(), item.payload(),
                    cause.toString());
        } catch (ArchiveUnavailableException e) {
            archiveFailures.increment();
            throw new ChunkPipelineUnavailableException("archive unavailable for a quarantined chunk: "
                    + e.getMessage());
        }
        LOG.error("internal error on chunk: project={} chunk_id={} event_id={} platform={}; payload kept as {}",
                item.projectId(), peek.chunkId(), item.envelope().eventId(), peek.platform(), key, cause);
    }

    /**
     * Who sent a refused chunk, for its health count: the payload's {@code client_sdk} as far as it can be read, else
     * the envelope's {@code sdk}; the item header's platform, else the payload's.
     */
    private static SdkKey refusedSdk(ProfileChunkItem item, ChunkPeek peek) {
        ClientSdk sdk = ChunkPeek.clientSdk(item.payload());
        return sdkKey(item, sdk, item.header().platform() != null ? item.header().platform() : peek.platform());
    }

    /** The chunk's {@code client_sdk} when it names the SDK, else the envelope's {@code sdk}. */
    private static SdkKey sdkKey(ProfileChunkItem item, ClientSdk sdk, String platform) {
        if (sdk != null && sdk.name() != null) {
            return new SdkKey(sdk.name(), sdk.version(), platform);
        }
        return new SdkKey(item.envelope().sdkName(), item.envelope().sdkVersion(), platform);
    }

    /** The Sentry form now (the 200 means it is safe), the OTLP form when the window ends, or at once. */
    private void store(ProfileChunkItem item, ChunkOutcome.Accepted accepted) {
        ProfileChunk chunk = accepted.chunk();
        ArchiveKey key = ArchiveKey.of(ProjectIds.format(item.projectId()),
                Instant.ofEpochSecond(0, chunk.sampleTimestampNanos(0)), chunk.profilerId().toHex(),
                chunk.chunkId().toHex());
        Map<String, String> metadata = ArchivedMetadata.of(chunk, version, item.header());
        ArchiveResult result = archived(key, () -> {
            underived.beforeWaiting();
            ArchiveResult archivedForm = archive.archiveSentryForm(key, item.payload(), metadata);
            // a duplicate is indexed again: the first attempt may have failed between its two writes
            timeIndex.record(key, chunk.firstSampleNanos(), chunk.lastSampleNanos());
            return archivedForm;
        });
        recent.archived(item.projectId(), chunk.chunkId().toHex());
        if (result == ArchiveResult.DUPLICATE) {
            // archived before: the SDK retried or the chunk was sent twice
            archiveDuplicates.increment();
            return;
        }
        RelayMeter.CHUNKS_ACCEPTED.counter(meters, Platform.metricTag(chunk.platform())).increment();
        SdkKey sdk = sdkKey(item, chunk.clientSdk(), chunk.platform());
        health.accepted(item.projectId(), item.receivedAt(), sdk, chunk.profilerId().toHex(), accepted.samples(),
                chunk.firstSampleNanos(), chunk.lastSampleNanos());
        derivations.schedule(item.projectId(), key, chunk, metadata,
                new ChunkReceipt(item.receivedAt(), sdk.sdk(), sdk.version(), sdk.platform()));
    }

    private ArchiveResult archived(ArchiveKey key, Supplier<ArchiveResult> write) {
        try {
            return timed("archive", write);
        } catch (ArchiveUnavailableException e) {
            archiveFailures.increment();
            LOG.warn("archive unavailable for chunk {} of project {}: {}", key.chunkId(), key.projectId(),
                    e.getMessage());
            throw new ChunkPipelineUnavailableException("archive unavailable: " + e.getMessage());
        }
    }

    private <T> T timed(String stage, Supplier<T> work) {
        return RelayMeter.CHUNK_STAGE.timer(meters, stage).record(work);
    }
}
