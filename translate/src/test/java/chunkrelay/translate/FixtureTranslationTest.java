package chunkrelay.translate;

import chunkrelay.chunk.Frame;
import chunkrelay.chunk.ProfileChunk;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every fixture chunk Relay accepts, translated: valid OTLP that keeps every sample and thread. */
class FixtureTranslationTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    static List<FixtureChunks.Normalised> chunks() {
        List<FixtureChunks.Normalised> chunks = FixtureChunks.all();
        assertEquals(9, chunks.size(), "6 recorded SDK chunks and 3 Sentry fixtures");
        return chunks;
    }

    private static ExportProfilesServiceRequest translate(ProfileChunk chunk) {
        return TRANSLATOR.translate(chunk, TranslationContext.forProject(1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void keepsEveryInvariant(FixtureChunks.Normalised fixture) {
        ExportProfilesServiceRequest request = translate(fixture.chunk());

        OtlpInvariants.assertValid(request);
        OtlpInvariants.assertValid(request.toByteArray());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void carriesOneTimestampPerNormalisedSample(FixtureChunks.Normalised fixture) {
        OtlpView view = new OtlpView(translate(fixture.chunk()));

        assertTrue(fixture.chunk().sampleCount() >= 2);
        assertEquals(fixture.chunk().sampleCount(), view.timestampCount());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void keepsEachThreadsTimelineOfStacks(FixtureChunks.Normalised fixture) {
        ProfileChunk chunk = fixture.chunk();
        OtlpView view = new OtlpView(translate(chunk));

        Map<String, List<String>> expected = new TreeMap<>();
        for (int s = 0; s < chunk.sampleCount(); s++) {
            List<String> names = new ArrayList<>();
            int stack = chunk.sampleStackId(s);
            for (int d = 0; d < chunk.stackDepth(stack); d++) {
                Frame frame = chunk.frames().get(chunk.stackFrame(stack, d));
                names.add(expectedName(chunk, frame));
            }
            expected.computeIfAbsent(chunk.threadId(chunk.sampleThreadIndex(s)), t -> new ArrayList<>())
                    .add(chunk.sampleTimestampNanos(s) + " " + names);
        }
        Map<String, List<String>> actual = new TreeMap<>();
        for (Sample sample : view.profile.getSamplesList()) {
            AnyValue threadId = view.attributes(sample).get(OtlpAttributes.THREAD_ID);
            String thread = threadId.hasIntValue() ? Long.toString(threadId.getIntValue()) : threadId.getStringValue();
            List<String> names = view.functionNames(sample);
            for (long timestamp : sample.getTimestampsUnixNanoList()) {
                actual.computeIfAbsent(thread, t -> new ArrayList<>()).add(timestamp + " " + names);
            }
        }
        // samples of one thread at one instant keep no order in OTLP: compare each timeline sorted
        Comparator<String> byTimeThenStack = Comparator.<String>comparingLong(e -> Long.parseLong(e.split(" ", 2)[0]))
                .thenComparing(Comparator.naturalOrder());
        expected.values().forEach(timeline -> timeline.sort(byTimeThenStack));
        actual.values().forEach(timeline -> timeline.sort(byTimeThenStack));
        assertEquals(expected, actual);
        assertEquals(chunk.threadCount(), actual.size());
    }

    /** The frame's function, qualified by its class on JVM platforms (the Java SDK keeps inner classes in filename). */
    private static String expectedName(ProfileChunk chunk, Frame frame) {
        String function = frame.function() == null ? "" : frame.function();
        boolean jvm = List.of("java", "android").contains(frame.platform() != null ? frame.platform() : chunk.platform());
        if (!jvm || frame.module() == null || function.isEmpty()) {
            return function;
        }
        String className = frame.filename() != null && frame.filename().startsWith(frame.module() + "$")
                ? frame.filename() : frame.module();
        return className + "." + function;
    }

    @Test
    void namesJavaFunctionsByQualifiedClassAndMethodAsJvmProfilersDo() {
        OtlpView view = new OtlpView(translate(FixtureChunks.sdkChunk("java-8.43.0/001").chunk()));
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (Sample sample : view.profile.getSamplesList()) {
            names.addAll(view.functionNames(sample));
        }
        assertTrue(names.contains("java.lang.Thread.run"), names.toString());
        assertTrue(names.contains("java.lang.ref.Finalizer$FinalizerThread.run"), names.toString());
        assertTrue(names.stream().anyMatch(n -> n.startsWith("io.sentry.") && n.matches("(\\w+\\.)+[A-Z][\\w$]*\\.[\\w$<>]+")),
                names.toString());
        assertTrue(names.stream().allMatch(n -> n.contains(".")), "every Java frame is qualified: " + names);
    }
}
