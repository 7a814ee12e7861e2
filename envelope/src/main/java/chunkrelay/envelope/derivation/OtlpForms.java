package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.archive.ArchivedMetadata;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.links.LinkedSpans;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.SampleLinker;
import chunkrelay.translate.SpanTimeline;
import chunkrelay.translate.TranslationContext;
import com.google.protobuf.InvalidProtocolBufferException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    }

    /**
     * An OTLP form ready to archive, with how its samples fared against the spans: {@code otlp} as it is, or (when
     * null) {@code stored}, as the archive stores it.
     */
    record Derived(byte[] otlp, byte[] stored, Map<String, String> metadata, int linked, int unlinked,
                           int ambiguous) {
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
                return holdObject.test(PreparedChunk.objectBytes(unlinked))
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
    Derived link(long projectId, PreparedChunk prepared) {
        SpanTimeline timeline = spans.forSamples(projectId, prepared.profilerId(), prepared.firstSampleNanos(),
                prepared.lastSampleNanos(), true);
        if (timeline.isEmpty()) {
            byte[] stored = prepared.unlinked() != null ? archive.compress(prepared.unlinked().toByteArray())
                    : prepared.storedOtlp();
            return new Derived(null, stored, prepared.metadata(), 0, prepared.sampleCount(), 0);
        }
        ChunkTranslator.Translated linked = SampleLinker.link(prepared.unlinked() != null ? prepared.unlinked()
                : parse(archive.decompress(prepared.storedOtlp())), timeline);
        return new Derived(linked.request().toByteArray(), null, prepared.metadata(), linked.linkedSamples(),
                linked.unlinkedSamples(), linked.ambiguousSamples());
    }

    private static ExportProfilesServiceRequest parse(byte[] otlp) {
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the relay's own OTLP form does not parse", e);
        }
    }

    /** Reads the Sentry form back and translates it with the spans known now; null when it is gone. */
    Derived fromArchive(long projectId, ArchiveKey key) {
        ProfileChunk normalised = readBack(key);
        return normalised == null ? null : translated(projectId, normalised, ArchivedMetadata.of(normalised, version));
    }

    /** The chunk translated with the spans known now, in one pass. */
    Derived translated(long projectId, ProfileChunk chunk, Map<String, String> metadata) {
        TranslationContext context = TranslationContext.forProject(projectId)
                .withServiceName(projects.serviceName(projectId))
                .withSpans(spans.forChunk(projectId, chunk, true));
        ChunkTranslator.Translated translated = translator.translateWithLinks(chunk, context);
        return new Derived(translated.request().toByteArray(), null, metadata, translated.linkedSamples(),
                translated.unlinkedSamples(), translated.ambiguousSamples());
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
