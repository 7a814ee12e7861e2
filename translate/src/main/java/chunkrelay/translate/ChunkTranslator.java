package chunkrelay.translate;

import chunkrelay.chunk.DebugImage;
import chunkrelay.chunk.Frame;
import chunkrelay.chunk.Measurement;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.ThreadMetadata;
import chunkrelay.chunk.primitive.LongIndex;
import chunkrelay.chunk.spans.SpanRecord;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import io.opentelemetry.proto.profiles.v1development.Stack;
import io.opentelemetry.proto.profiles.v1development.ValueType;
import io.opentelemetry.proto.resource.v1.Resource;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

import static chunkrelay.translate.OtlpAttributes.*;

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
 *   <li>frame: {@code Function} (name from {@code function}, qualified as {@code package.Class.method} for
 *       Java and Android frames, whose JNI signature, when known, goes with that name into {@code system_name};
 *       file from {@code abs_path}, else {@code filename}, else {@code module}), {@code Line} ({@code lineno}, {@code colno}),
 *       {@code Location} (address from {@code instruction_addr}; attributes {@code profile.frame.type}
 *       from the frame's platform else the chunk's, {@code sentry.frame.in_app},
 *       {@code sentry.frame.module}, {@code sentry.frame.platform} when the frame has its own);</li>
 *   <li>debug image holding a frame's address: {@code Mapping} (range, {@code code_file}, ids);</li>
 *   <li>sample: a timestamp of the {@code Sample} of its (stack, thread, link), with {@code thread.id},
 *       {@code thread.name} and {@code sentry.thread.priority}; the link is the innermost span of the context's
 *       {@link SpanTimeline} covering the sample on its thread, and the profile then says how many samples were
 *       linked ({@code sentry.profile.samples_linked}) and left unlinked as ambiguous;</li>
 *   <li>measurements: profile attributes {@code sentry.measurement.<name>};</li>
 *   <li>chunk id: {@code profile_id}; release, environment, SDK, platform, profiler id, project:
 *       resource attributes.</li>
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
        Translation translation = new Translation(chunk, context.spans());
        Profile profile = translation.profile();
        ExportProfilesServiceRequest request = ExportProfilesServiceRequest.newBuilder()
                .addResourceProfiles(ResourceProfiles.newBuilder()
                        .setResource(resource(chunk, context))
                        .addScopeProfiles(ScopeProfiles.newBuilder().setScope(scope).addProfiles(profile)))
                .setDictionary(translation.dictionary.build())
                .build();
        return new Translated(request, translation.linked, chunk.sampleCount() - translation.linked
                - translation.ambiguous, translation.ambiguous);
    }

    private static Resource resource(ProfileChunk chunk, TranslationContext context) {
        Resource.Builder resource = Resource.newBuilder();
        put(resource, SERVICE_NAME, context.serviceName().orElseGet(() -> serviceNameOf(chunk.release())));
        put(resource, SERVICE_VERSION, chunk.release());
        put(resource, DEPLOYMENT_ENVIRONMENT_NAME, chunk.environment());
        if (chunk.clientSdk() != null) {
            put(resource, TELEMETRY_SDK_NAME, chunk.clientSdk().name());
            put(resource, TELEMETRY_SDK_VERSION, chunk.clientSdk().version());
        }
        if (chunk.platform() != null) {
            put(resource, TELEMETRY_SDK_LANGUAGE, Platforms.sdkLanguage(chunk.platform()));
            put(resource, PROCESS_RUNTIME_NAME, chunk.platform());
        }
        put(resource, SENTRY_PROJECT_ID, Long.toString(context.projectId()));
        put(resource, SENTRY_PROFILER_ID, chunk.profilerId() == null ? null : chunk.profilerId().toHex());
        return resource.build();
    }

    /** Sentry releases are conventionally {@code package@version}: the package names the service. */
    static String serviceNameOf(String release) {
        int at = release == null ? -1 : release.indexOf('@');
        return at > 0 ? release.substring(0, at) : UNKNOWN_SERVICE;
    }

    /** Resource attributes are plain key and string_value: the collector does not resolve strindex forms. */
    private static void put(Resource.Builder resource, String key, String value) {
        if (value != null && !value.isEmpty()) {
            resource.addAttributes(KeyValue.newBuilder().setKey(key)
                    .setValue(AnyValue.newBuilder().setStringValue(value)));
        }
    }

    /** The state of translating one chunk. */
    private static final class Translation {
        private final ProfileChunk chunk;
        private final ProfilesDictionaryBuilder dictionary = new ProfilesDictionaryBuilder();
        private final DebugImageIndex images;
        private final Map<DebugImage, Integer> mappingOfImage = new HashMap<>();
        /** Chunk frame index to location index; -1 until first reached. */
        private final int[] locationOfFrame;
        /** Chunk stack id to stack index; -1 until first reached. */
        private final int[] stackOfStackId;
        /** Chunk thread index to the sample attribute indices; null until first reached. */
        private final int[][] attributesOfThread;
        private final SpanTimeline spans;
        /** Chunk thread index to its span answers; null until first reached. */
        private final SpanTimeline.ThreadLinks[] linksOfThread;
        /** Span index to link index; 0 until first reached. */
        private final int[] linkOfSpan;
        private int linked;
        private int ambiguous;

        Translation(ProfileChunk chunk, SpanTimeline spans) {
            this.chunk = chunk;
            this.images = new DebugImageIndex(chunk.debugImages());
            this.locationOfFrame = filled(chunk.frames().size());
            this.stackOfStackId = filled(chunk.stackCount());
            this.attributesOfThread = new int[chunk.threadCount()][];
            this.spans = spans;
            this.linksOfThread = new SpanTimeline.ThreadLinks[chunk.threadCount()];
            this.linkOfSpan = new int[spans.size()];
        }

        Profile profile() {
            long period = SamplingPeriod.medianThreadDelta(chunk);
            Profile.Builder profile = Profile.newBuilder()
                    .setSampleType(valueType("samples", "count"))
                    .setPeriodType(valueType("cpu", "nanoseconds"))
                    .setPeriod(period)
                    .setProfileId(ByteString.copyFrom(chunk.chunkId().toBytes()));

            // one Sample per (stack, thread, link), in first-seen order
            int n = chunk.sampleCount();
            SampleGroups groups = new SampleGroups(n);
            LongIndex threadLinks = new LongIndex(64);
            for (int s = 0; s < n; s++) {
                int stack = stack(chunk.sampleStackId(s));
                int thread = chunk.sampleThreadIndex(s);
                int link = link(thread, chunk.sampleTimestampNanos(s));
                groups.add(((long) stack << 32) | threadLinks.indexOf(((long) thread << 32) | link));
            }
            groups.fill(chunk::sampleTimestampNanos);
            for (int g = 0; g < groups.size(); g++) {
                long key = groups.key(g);
                long threadLink = threadLinks.key((int) key);
                Sample.Builder sample = Sample.newBuilder().setStackIndex((int) (key >>> 32))
                        .setLinkIndex((int) threadLink);
                for (int attribute : threadAttributes((int) (threadLink >>> 32))) {
                    sample.addAttributeIndices(attribute);
                }
                profile.addSamples(groups.addTimestamps(g, sample));
            }
            // the last sample stands for one period of execution, so the profile covers it too
            long first = chunk.firstSampleNanos();
            profile.setTimeUnixNano(first).setDurationNano(chunk.lastSampleNanos() - first + period);
            measurements(profile);
            // last, so that a profile translated without spans and linked later (SampleLinker) comes out
            // with the same tables: the link counts only ever append
            if (!spans.isEmpty()) {
                profile.addAttributeIndices(dictionary.attribute(SENTRY_SAMPLES_LINKED, linked));
                profile.addAttributeIndices(dictionary.attribute(SENTRY_SAMPLES_AMBIGUOUS, ambiguous));
            }
            return profile.build();
        }

        /** The link index of a sample of thread {@code thread} at {@code timestamp}: 0 when no span links it. */
        private int link(int thread, long timestamp) {
            if (spans.isEmpty()) {
                return 0;
            }
            SpanTimeline.ThreadLinks links = linksOfThread[thread];
            if (links == null) {
                links = linksOfThread[thread] = spans.forThread(chunk.threadId(thread), chunk.threadCount() == 1);
            }
            int span = links.spanAt(timestamp);
            if (span == SpanTimeline.AMBIGUOUS) {
                ambiguous++;
                return 0;
            }
            if (span == SpanTimeline.UNLINKED) {
                return 0;
            }
            linked++;
            int known = linkOfSpan[span];
            if (known != 0) {
                return known;
            }
            SpanRecord record = spans.span(span);
            return linkOfSpan[span] = dictionary.link(Link.newBuilder()
                    .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(record.traceId())))
                    .setSpanId(ByteString.copyFrom(HexFormat.of().parseHex(record.spanId())))
                    .build());
        }

        private ValueType valueType(String type, String unit) {
            return ValueType.newBuilder()
                    .setTypeStrindex(dictionary.string(type))
                    .setUnitStrindex(dictionary.string(unit))
                    .build();
        }

        private int stack(int stackId) {
            int known = stackOfStackId[stackId];
            if (known >= 0) {
                return known;
            }
            Stack.Builder stack = Stack.newBuilder();
            int depth = chunk.stackDepth(stackId);
            for (int d = 0; d < depth; d++) {
                stack.addLocationIndices(location(chunk.stackFrame(stackId, d)));
            }
            return stackOfStackId[stackId] = dictionary.stack(stack.build());
        }

        private int location(int frameIndex) {
            int known = locationOfFrame[frameIndex];
            if (known >= 0) {
                return known;
            }
            Frame frame = chunk.frames().get(frameIndex);
            Location.Builder location = Location.newBuilder();
            if (frame.instructionAddr() != null) {
                long address = frame.instructionAddr();
                location.setAddress(address);
                DebugImage image = images.find(address);
                if (image != null) {
                    location.setMappingIndex(mappingOfImage.computeIfAbsent(image, this::mapping));
                }
            }
            int function = function(frame);
            // a frame with neither name nor file (an unsymbolicated address) gets no line: an empty
            // Function is invalid, and the address and mapping already say where it is
            if (function != 0) {
                location.addLines(Line.newBuilder()
                        .setFunctionIndex(function)
                        .setLine(frame.lineno() == null ? 0 : Integer.toUnsignedLong(frame.lineno()))
                        .setColumn(frame.colno() == null ? 0 : Integer.toUnsignedLong(frame.colno())));
            }
            String platform = frame.platform() != null ? frame.platform() : chunk.platform();
            if (platform != null) {
                location.addAttributeIndices(dictionary.attribute(PROFILE_FRAME_TYPE, Platforms.frameType(platform)));
            }
            if (frame.inApp() != null) {
                location.addAttributeIndices(dictionary.attribute(SENTRY_FRAME_IN_APP, frame.inApp()));
            }
            if (frame.module() != null) {
                location.addAttributeIndices(dictionary.attribute(SENTRY_FRAME_MODULE, frame.module()));
            }
            if (frame.platform() != null) {
                location.addAttributeIndices(dictionary.attribute(SENTRY_FRAME_PLATFORM, frame.platform()));
            }
            return locationOfFrame[frameIndex] = dictionary.location(location.build());
        }

        /**
         * The function of a frame, or 0 when the frame names neither function nor file. Frames of JVM platforms are
         * named {@code package.Class.method} ({@link JvmFrameNames}), with the JNI signature in {@code system_name}
         * when the frame has one (Android ART traces).
         */
        private int function(Frame frame) {
            String platform = frame.platform() != null ? frame.platform() : chunk.platform();
            boolean jvm = platform != null && JvmFrameNames.isJvm(platform);
            int name = dictionary.string(jvm ? JvmFrameNames.qualifiedName(frame) : frame.function());
            int file = dictionary.string(firstNonEmpty(frame.absPath(), frame.filename(), frame.module()));
            if (name == 0 && file == 0) {
                return 0;
            }
            Function.Builder function = Function.newBuilder().setNameStrindex(name).setFilenameStrindex(file);
            if (jvm) {
                function.setSystemNameStrindex(dictionary.string(JvmFrameNames.systemName(frame)));
            }
            return dictionary.function(function.build());
        }

        private int mapping(DebugImage image) {
            Mapping.Builder mapping = Mapping.newBuilder()
                    .setMemoryStart(image.imageAddr())
                    .setMemoryLimit(image.imageAddr() + image.imageSize())
                    .setFilenameStrindex(dictionary.string(image.codeFile()));
            addIfPresent(mapping, SENTRY_IMAGE_DEBUG_ID, image.debugId());
            addIfPresent(mapping, SENTRY_IMAGE_CODE_ID, image.codeId());
            addIfPresent(mapping, SENTRY_IMAGE_UUID, image.uuid());
            addIfPresent(mapping, SENTRY_IMAGE_TYPE, image.type());
            addIfPresent(mapping, SENTRY_IMAGE_ARCH, image.arch());
            if (image.imageVmaddr() != null) {
                mapping.addAttributeIndices(dictionary.attribute(SENTRY_IMAGE_VMADDR, image.imageVmaddr()));
            }
            return dictionary.mapping(mapping.build());
        }

        private void addIfPresent(Mapping.Builder mapping, String key, String value) {
            if (value != null && !value.isEmpty()) {
                mapping.addAttributeIndices(dictionary.attribute(key, value));
            }
        }

        private int[] threadAttributes(int threadIndex) {
            int[] known = attributesOfThread[threadIndex];
            if (known != null) {
                return known;
            }
            String threadId = chunk.threadId(threadIndex);
            ThreadMetadata metadata = chunk.threadMetadata().get(threadId);
            int[] attributes = new int[3];
            int count = 0;
            attributes[count++] = dictionary.attribute(THREAD_ID, threadIdValue(threadId), null);
            if (metadata != null && metadata.name() != null) {
                attributes[count++] = dictionary.attribute(THREAD_NAME, metadata.name());
            }
            if (metadata != null && metadata.priority() != null) {
                attributes[count++] = dictionary.attribute(SENTRY_THREAD_PRIORITY, metadata.priority());
            }
            return attributesOfThread[threadIndex] = Arrays.copyOf(attributes, count);
        }

        /** Measurements in name order, so that the output does not depend on map iteration order. */
        private void measurements(Profile.Builder profile) {
            for (Map.Entry<String, Measurement> entry : new TreeMap<>(chunk.measurements()).entrySet()) {
                Measurement measurement = entry.getValue();
                ArrayValue.Builder timestamps = ArrayValue.newBuilder();
                ArrayValue.Builder values = ArrayValue.newBuilder();
                for (int i = 0; i < measurement.size(); i++) {
                    timestamps.addValues(AnyValue.newBuilder().setDoubleValue(measurement.timestamp(i)));
                    values.addValues(AnyValue.newBuilder().setDoubleValue(measurement.value(i)));
                }
                AnyValue series = AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
                        .addValues(KeyValue.newBuilder().setKey("timestamps")
                                .setValue(AnyValue.newBuilder().setArrayValue(timestamps)))
                        .addValues(KeyValue.newBuilder().setKey("values")
                                .setValue(AnyValue.newBuilder().setArrayValue(values))))
                        .build();
                profile.addAttributeIndices(dictionary.attribute(SENTRY_MEASUREMENT_PREFIX + entry.getKey(),
                        series, Platforms.ucumUnit(measurement.unit())));
            }
        }
    }

    /** {@code thread.id} is an int in the conventions; ids that are not plain decimal numbers stay strings. */
    public static AnyValue threadIdValue(String threadId) {
        if (isCanonicalDecimal(threadId)) {
            return AnyValue.newBuilder().setIntValue(Long.parseLong(threadId)).build();
        }
        return AnyValue.newBuilder().setStringValue(threadId).build();
    }

    /** Digits with an optional minus, no leading zero, within a long: the form that survives a round trip. */
    private static boolean isCanonicalDecimal(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        int digits = text.length() - start;
        if (digits == 0 || digits > 19 || (text.charAt(start) == '0' && (digits > 1 || start == 1))) {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        if (digits < 19) {
            return true;
        }
        try {
            Long.parseLong(text);
            return true;
        } catch (NumberFormatException tooLarge) {
            return false;
        }
    }

    private static String firstNonEmpty(String... candidates) {
        for (String candidate : candidates) {
            if (candidate != null && !candidate.isEmpty()) {
                return candidate;
            }
        }
        return null;
    }

    private static int[] filled(int length) {
        int[] array = new int[length];
        Arrays.fill(array, -1);
        return array;
    }
}
