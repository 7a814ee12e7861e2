package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ClientSdk;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.archive.ArchivedMetadata;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.links.LinkedSpans;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.OtlpHeap;
import chunkrelay.translate.SampleLinker;
import chunkrelay.translate.SpanTimeline;
import chunkrelay.translate.TranslationContext;
import com.google.protobuf.InvalidProtocolBufferException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * What a chunk's OTLP form is: translated without spans at receipt ({@link PreparedChunk}, as an object or as
 * compressed bytes), then linked with the spans known when it is derived; or, for a chunk that did not wait in
 * memory, its Sentry form read back from the archive and translated with them. {@link ChunkDerivations} decides when.
 */
final class OtlpForms {
    private static final Logger LOG = LoggerFactory.getLogger(OtlpForms.class);

    private final ChunkArchive archive;
    private final ChunkProcessor processor;
    private final ChunkTranslator translator;
    private final LinkedSpans spans;
    private final ProjectRegistry projects;
    private final RelayVersion version;
    private final MeterRegistry meters;
    private final Counter readBack;
    private final Counter otlpReads;

    OtlpForms(ChunkArchive archive, ChunkProcessor processor, ChunkTranslator translator, LinkedSpans spans,
              ProjectRegistry projects, RelayVersion version, MeterRegistry meters) {
        this.archive = archive;
        this.processor = processor;
        this.translator = translator;
        this.spans = spans;
        this.projects = projects;
        this.version = version;
        this.meters = meters;
        this.readBack = RelayMeter.DERIVATIONS_READ_BACK.counter(meters);
        this.otlpReads = RelayMeter.OTLP_READS.counter(meters, "link");
    }

    /**
     * An OTLP form ready to archive, with how its samples fared against the spans: the object made in this pass
     * ({@code form}) and its bytes ({@code otlp}), or, for a chunk that waited as compressed bytes and had no span to
     * link, only those bytes ({@code stored}, as the archive stores them). {@code asTranslatedAtReceipt}: the form is
     * the one translated at receipt, unchanged (no span to link), which the open minutes counted then.
     * {@code receipt}: what the link outcome is counted under.
     */
    record Derived(ExportProfilesServiceRequest form, byte[] otlp, byte[] stored, Map<String, String> metadata,
                   int linked, int unlinked, int ambiguous, boolean asTranslatedAtReceipt, ChunkReceipt receipt) {
        static Derived of(ChunkTranslator.Translated translated, Map<String, String> metadata,
                          ChunkReceipt receipt) {
            return new Derived(translated.request(), translated.request().toByteArray(), null, metadata,
                    translated.linkedSamples(), translated.unlinkedSamples(), translated.ambiguousSamples(), false,
                    receipt);
        }
    }

    /**
     * The chunk translated without spans, or null when that fails (the derivation then reads it back and logs).
     *
     * @param holdObject takes an OTLP object's heap bytes and answers whether the chunk may wait as that object;
     *                   if not it waits as compressed bytes
     * @param translated given the OTLP object as soon as it is made, whichever way the chunk then waits
     */
    PreparedChunk prepare(long projectId, ProfileChunk chunk, Map<String, String> metadata, LongPredicate holdObject,
                          Consumer<ExportProfilesServiceRequest> translated) {
        try {
            TranslationContext context = TranslationContext.forProject(projectId)
                    .withServiceName(projects.serviceName(projectId));
            return RelayMeter.CHUNK_STAGE.timer(meters, "translate").record(() -> {
                ExportProfilesServiceRequest unlinked = translator.translate(chunk, context);
                translated.accept(unlinked);
                return holdObject.test(OtlpHeap.bytes(unlinked))
                        ? PreparedChunk.of(chunk, unlinked, null, metadata)
                        : PreparedChunk.of(chunk, null, archive.compress(unlinked.toByteArray()), metadata);
            });
        } catch (RuntimeException | StackOverflowError e) {
            LOG.warn("translating chunk {} of project {} failed; it is derived from its archived form later",
                    chunk.chunkId(), projectId, e);
            return null;
        }
    }

    /**
     * Links the form translated at receipt; with no span to link to, it is the OTLP form as it is. Either way of
     * holding it gives the same bytes.
     */
    Derived link(long projectId, PreparedChunk prepared, ChunkReceipt receipt) {
        SpanTimeline timeline = spans.forSamples(projectId, prepared.profilerId(), prepared.firstSampleNanos(),
                prepared.lastSampleNanos(), true);
        if (timeline.isEmpty()) {
            ExportProfilesServiceRequest unlinked = prepared.unlinked();
            return unlinked != null
                    ? new Derived(unlinked, unlinked.toByteArray(), null, prepared.metadata(), 0,
                            prepared.sampleCount(), 0, true, receipt)
                    : new Derived(null, null, prepared.storedOtlp(), prepared.metadata(), 0, prepared.sampleCount(),
                            0, true, receipt);
        }
        return Derived.of(SampleLinker.link(prepared.unlinked() != null ? prepared.unlinked()
                : parse(archive.decompress(prepared.storedOtlp())), timeline), prepared.metadata(), receipt);
    }

    /** Parses a form that waited as bytes (past the pending objects' budget), counted as a read-back. */
    private ExportProfilesServiceRequest parse(byte[] otlp) {
        otlpReads.increment();
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the relay's own OTLP form does not parse", e);
        }
    }

    /**
     * Reads the Sentry form back and translates it with the spans known now; null when it is gone.
     *
     * @param receipt how the chunk path saw it, or null when it is not known here (recovery, replay): then the chunk's
     *                own {@code client_sdk} and platform, and its last sample's time for its receipt's
     */
    Derived fromArchive(long projectId, ArchiveKey key, ChunkReceipt receipt) {
        ProfileChunk normalised = readBack(key);
        if (normalised == null) {
            return null;
        }
        return translated(projectId, normalised, ArchivedMetadata.of(normalised, version),
                receipt != null ? receipt : ownReceipt(normalised));
    }

    private static ChunkReceipt ownReceipt(ProfileChunk chunk) {
        ClientSdk sdk = chunk.clientSdk();
        return new ChunkReceipt(Instant.ofEpochSecond(0, chunk.lastSampleNanos()), sdk == null ? null : sdk.name(),
                sdk == null ? null : sdk.version(), chunk.platform());
    }

    /** The chunk translated with the spans known now, in one pass. */
    Derived translated(long projectId, ProfileChunk chunk, Map<String, String> metadata, ChunkReceipt receipt) {
        TranslationContext context = TranslationContext.forProject(projectId)
                .withServiceName(projects.serviceName(projectId))
                .withSpans(spans.forChunk(projectId, chunk, true));
        return Derived.of(translator.translateWithLinks(chunk, context), metadata, receipt);
    }

    private ProfileChunk readBack(ArchiveKey key) {
        readBack.increment();
        byte[] payload = archive.readSentry(key).orElse(null);
        if (payload == null) {
            return null;
        }
        // a compound (Perfetto) chunk is split where its item header said; its metadata keeps that
        ChunkItemHeader header = ArchivedMetadata.itemHeader(archive.sentryMetadata(key));
        ChunkOutcome outcome = processor.process(payload, header);
        if (outcome instanceof ChunkOutcome.Accepted accepted) {
            return accepted.chunk();
        }
        // it was accepted once: only a changed relay can reject it now, and that is the relay's bug
        throw new IllegalStateException("archived chunk " + key.stem() + " no longer passes: " + outcome);
    }
}
