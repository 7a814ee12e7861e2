package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.primitive.LongIndex;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.ValueType;

/**
 * Translates a normalised Sample Format V2 chunk into one OTLP {@link ExportProfilesServiceRequest}
 * (v1.10 wire shape) holding one profile.
 *
 * <p>Frames and stacks arrive indexed, so each is translated once, the first time a sample reaches it
 * (frames and stacks no sample reaches would be orphans in the dictionary and are left out); samples
 * are then plain array lookups, grouped by (stack, thread, link) into one {@link Sample} carrying all their
 * timestamps. Stateless and thread-safe.
 *
 * <p>Where each part of the chunk goes (attribute names in {@link OtlpAttributes}):
 * <ul>
 *   <li>frame ({@link StackTables}): {@code Function} (name from {@code function}, qualified as
 *       {@code package.Class.method} for Java and Android frames, whose JNI signature, when known, goes with that
 *       name into {@code system_name}; a frame with a file but no name named as Sentry's UI names it,
 *       {@link UnnamedFrames}; file from {@code abs_path}, else {@code filename}, else {@code module}),
 *       {@code Line} ({@code lineno}, {@code colno}), {@code Location} (address from {@code instruction_addr};
 *       attributes {@code profile.frame.type} from the frame's platform else the chunk's, {@code sentry.frame.in_app},
 *       {@code sentry.frame.module}, {@code sentry.frame.platform} when the frame has its own);</li>
 *   <li>debug image holding a frame's address ({@link StackTables}): {@code Mapping} (range, {@code code_file},
 *       ids);</li>
 *   <li>sample: a timestamp of the {@code Sample} of its (stack, thread, link), with {@code thread.id},
 *       {@code thread.name} and {@code sentry.thread.priority} ({@link ThreadAttributes}); the link
 *       ({@link SpanLinks}) is the innermost span of the context's {@link SpanTimeline} covering the sample on its
 *       thread, and the profile then says how many samples were linked ({@code sentry.profile.samples_linked})
 *       and left unlinked as ambiguous;</li>
 *   <li>measurements ({@link MeasurementAttributes}): profile attributes {@code sentry.measurement.<name>};</li>
 *   <li>what a tick stands for ({@link ProfileTypes}): {@code sample_type} {@code samples}/{@code count},
 *       {@code period_type} {@code wall} or {@code cpu} in nanoseconds, {@code period} ({@link SamplingPeriod}); a
 *       sample with an empty stack gets one frame saying so ({@link ProfileTypes#IDLE_FRAME});</li>
 *   <li>chunk id: {@code profile_id}; profiler id (one per profiler session): a profile attribute
 *       ({@link ProfileAttributes}); release, environment, SDK, platform, project: resource attributes
 *       ({@link ResourceAttributes}), which consumers such as Pyroscope make series labels, so nothing per session
 *       or per chunk goes there.</li>
 * </ul>
 * Left out, because OTLP has no place for them that would not break its invariants: the format
 * {@code version} (implied by the translation); frames, stacks and debug images no sample reaches
 * (dictionary items nothing refers to are orphans); {@code lineno}/{@code colno} of a frame that names
 * neither function, file nor module (a {@code Line} needs a {@code Function}, and a function without
 * any name is invalid). Relay's normalisation has already dropped thread metadata of threads without
 * samples.
 *
 * <p>Not final: the relay's tests stand in a translator that fails, to show how the relay handles a bug of its own.
 */
public class ChunkTranslator {
    private final InstrumentationScope scope;

    /** @param scopeName the relay's name and version, written as the instrumentation scope */
    public ChunkTranslator(String scopeName, String scopeVersion) {
        this.scope = InstrumentationScope.newBuilder().setName(scopeName).setVersion(scopeVersion).build();
    }

    /**
     * @throws IllegalArgumentException when the chunk has no samples: consumers drop empty profiles,
     *                                  and Relay's normalisation never lets such a chunk through
     */
    public ExportProfilesServiceRequest translate(ProfileChunk chunk, TranslationContext context) {
        return translateWithLinks(chunk, context).request();
    }

    /**
     * The request and how its samples fared against the context's spans.
     *
     * @param linkedSamples    samples linked to a span
     * @param unlinkedSamples  samples no span of their thread covers
     * @param ambiguousSamples samples covered only by spans of their thread that do not nest, left unlinked
     */
    public record Translated(ExportProfilesServiceRequest request, int linkedSamples, int unlinkedSamples,
                             int ambiguousSamples) {
    }

    /** As {@link #translate}, with the counts of linked and unlinked samples. */
    public Translated translateWithLinks(ProfileChunk chunk, TranslationContext context) {
        if (chunk.sampleCount() == 0) {
            throw new IllegalArgumentException("chunk " + chunk.chunkId() + " has no samples");
        }
        ProfilesDictionaryBuilder dictionary = new ProfilesDictionaryBuilder();
        SpanLinks links = new SpanLinks(chunk, context.spans(), dictionary);
        Profile profile = profile(chunk, dictionary, links);
        ExportProfilesServiceRequest request = ExportProfilesServiceRequest.newBuilder()
                .addResourceProfiles(ResourceProfiles.newBuilder()
                        .setResource(ResourceAttributes.of(chunk, context))
                        .addScopeProfiles(ScopeProfiles.newBuilder().setScope(scope).addProfiles(profile)))
                .setDictionary(dictionary.build())
                .build();
        return new Translated(request, links.linked(), chunk.sampleCount() - links.linked() - links.ambiguous(),
                links.ambiguous());
    }

    private static Profile profile(ProfileChunk chunk, ProfilesDictionaryBuilder dictionary, SpanLinks links) {
        StackTables stacks = new StackTables(chunk, dictionary);
        ThreadAttributes threads = new ThreadAttributes(chunk, dictionary);
        long period = SamplingPeriod.of(chunk);
        Profile.Builder profile = Profile.newBuilder()
                .setSampleType(valueType(dictionary, ProfileTypes.SAMPLES, ProfileTypes.COUNT))
                .setPeriodType(valueType(dictionary, ProfileTypes.periodType(chunk.sampledTime()),
                        ProfileTypes.NANOSECONDS))
                .setPeriod(period)
                .setProfileId(ByteString.copyFrom(chunk.chunkId().toBytes()));
        ProfileAttributes.addTo(profile, chunk, dictionary);

        // one Sample per (stack, thread, link), in first-seen order
        int n = chunk.sampleCount();
        SampleGroups groups = new SampleGroups(n);
        LongIndex threadLinks = new LongIndex(64);
        for (int s = 0; s < n; s++) {
            int stack = stacks.stack(chunk.sampleStackId(s));
            int thread = chunk.sampleThreadIndex(s);
            int link = links.link(thread, chunk.sampleTimestampNanos(s));
            groups.add(((long) stack << 32) | threadLinks.indexOf(((long) thread << 32) | link));
        }
        groups.fill(chunk::sampleTimestampNanos);
        for (int g = 0; g < groups.size(); g++) {
            long key = groups.key(g);
            long threadLink = threadLinks.key((int) key);
            Sample.Builder sample = Sample.newBuilder().setStackIndex((int) (key >>> 32))
                    .setLinkIndex((int) threadLink);
            for (int attribute : threads.of((int) (threadLink >>> 32))) {
                sample.addAttributeIndices(attribute);
            }
            profile.addSamples(groups.addTimestamps(g, sample));
        }
        // the last sample stands for one period of execution, so the profile covers it too
        long first = chunk.firstSampleNanos();
        profile.setTimeUnixNano(first).setDurationNano(chunk.lastSampleNanos() - first + period);
        MeasurementAttributes.addTo(profile, chunk.measurements(), dictionary);
        // last, so that a profile linked later (SampleLinker) comes out with the same tables
        links.addCounts(profile);
        return profile.build();
    }

    private static ValueType valueType(ProfilesDictionaryBuilder dictionary, String type, String unit) {
        return ValueType.newBuilder()
                .setTypeStrindex(dictionary.string(type))
                .setUnitStrindex(dictionary.string(unit))
                .build();
    }
}
