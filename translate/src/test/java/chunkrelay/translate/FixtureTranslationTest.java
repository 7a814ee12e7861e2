package chunkrelay.translate;

import chunkrelay.chunk.Frame;
import chunkrelay.chunk.ProfileChunk;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every fixture chunk Relay accepts, translated: valid OTLP that keeps every sample and thread, its frames named as
 * profilers show them.
 */
class FixtureTranslationTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    static List<FixtureChunks.Normalised> chunks() {
        List<FixtureChunks.Normalised> chunks = FixtureChunks.all();
        assertEquals(10, chunks.size(), "7 recorded SDK chunks and 3 Sentry fixtures");
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

    /**
     * Each thread's samples in time order, each with its stack of frames, leaf first. A frame is recognised by its
     * function: the translated name is the function, or ends with it after the class that qualifies it (how the
     * name is formed is pinned with literal names by {@link #namesRecordedFramesAsProfilersShowThem}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void keepsEachThreadsTimelineOfStacks(FixtureChunks.Normalised fixture) {
        ProfileChunk chunk = fixture.chunk();
        OtlpView view = new OtlpView(translate(chunk));

        Map<String, List<TimedStack>> expected = new TreeMap<>();
        for (int s = 0; s < chunk.sampleCount(); s++) {
            List<String> functions = new ArrayList<>();
            int stack = chunk.sampleStackId(s);
            for (int d = 0; d < chunk.stackDepth(stack); d++) {
                Frame frame = chunk.frames().get(chunk.stackFrame(stack, d));
                functions.add(expectedName(chunk, frame));
            }
            if (functions.isEmpty()) {
                functions.add(ProfileTypes.IDLE_FRAME);
            }
            expected.computeIfAbsent(chunk.threadId(chunk.sampleThreadIndex(s)), t -> new ArrayList<>())
                    .add(new TimedStack(chunk.sampleTimestampNanos(s), functions));
        }
        Map<String, List<TimedStack>> actual = new TreeMap<>();
        for (Sample sample : view.profile.getSamplesList()) {
            AnyValue threadId = view.attributes(sample).get(OtlpAttributes.THREAD_ID);
            String thread = threadId.hasIntValue() ? Long.toString(threadId.getIntValue()) : threadId.getStringValue();
            List<String> names = view.functionNames(sample);
            for (long timestamp : sample.getTimestampsUnixNanoList()) {
                actual.computeIfAbsent(thread, t -> new ArrayList<>()).add(new TimedStack(timestamp, names));
            }
        }
        assertEquals(expected.keySet(), actual.keySet(), "threads");
        assertEquals(chunk.threadCount(), actual.size());
        expected.forEach((thread, timeline) -> assertSameTimeline(thread, timeline, actual.get(thread)));
    }

    /**
     * The function of a frame, or for a frame with a file and no function the name Sentry's UI shows for it: every
     * fixture chunk is of a wall-clock profiler, and its empty stacks are idle ticks.
     */
    private static String expectedName(ProfileChunk chunk, Frame frame) {
        boolean hasFile = frame.absPath() != null || frame.filename() != null || frame.module() != null;
        if (frame.function() == null || frame.function().isEmpty()) {
            return hasFile ? ("node".equals(chunk.platform()) ? "<anonymous>" : "<unknown>") : "";
        }
        return frame.function();
    }

    /** A sample's time and its stack, leaf first: functions of the chunk's frames, or translated names. */
    private record TimedStack(long timestampNanos, List<String> frames) {
    }

    /** Samples of one thread at one instant keep no order in OTLP: each instant's stacks are matched as a set. */
    private static void assertSameTimeline(String thread, List<TimedStack> expected, List<TimedStack> actual) {
        assertEquals(expected.size(), actual.size(), "samples of thread " + thread);
        Map<Long, List<List<String>>> byTime = new TreeMap<>();
        actual.forEach(s -> byTime.computeIfAbsent(s.timestampNanos(), t -> new ArrayList<>()).add(s.frames()));
        for (TimedStack sample : expected) {
            List<List<String>> candidates = byTime.getOrDefault(sample.timestampNanos(), new ArrayList<>());
            List<String> match = candidates.stream().filter(names -> sameFrames(sample.frames(), names)).findFirst()
                    .orElseThrow(() -> new AssertionError("thread " + thread + " at " + sample.timestampNanos()
                            + ": no translated stack " + candidates + " has the functions " + sample.frames()));
            candidates.remove(match);
        }
    }

    private static boolean sameFrames(List<String> functions, List<String> names) {
        if (functions.size() != names.size()) {
            return false;
        }
        for (int i = 0; i < functions.size(); i++) {
            String function = functions.get(i);
            String name = names.get(i);
            if (!name.equals(function) && !(function.length() > 0 && name.endsWith("." + function))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Literal stacks (leaf first) of each fixture, as its translated samples must name them: JVM frames (Java and
     * Android) as {@code package.Class.method} with inner, lambda and hidden classes whole, as JVM profilers show
     * them; Python frames as {@code module.Class.method} (the module, then the qualified name sentry-sdk sends);
     * Node.js and native frames by their function alone, anonymous Node.js functions as Sentry's UI shows them
     * ({@code <anonymous>}); Cocoa frames with neither function nor file by the empty name (they have only an
     * address). (Relay drops the samples of the JVM's threads without a Java frame: a thread needs 2 samples with a
     * stack, so no recorded chunk keeps an empty stack.)
     */
    private static final Map<String, List<List<String>>> LITERAL_STACKS = Map.of(
            "java-8.43.0/001", List.of(
                    List.of("one.profiler.AsyncProfiler.execute0", "one.profiler.AsyncProfiler.execute",
                            "io.sentry.asyncprofiler.profiling.JavaContinuousProfiler.start",
                            "io.sentry.asyncprofiler.profiling.JavaContinuousProfiler.startProfiler",
                            "io.sentry.Scopes.startProfiler", "io.sentry.Sentry.startProfiler",
                            "fixture.ProfileMain.main"),
                    List.of("fixture.ProfileMain.workerSpinCpu", "fixture.ProfileMain.lambda$main$1",
                            "fixture.ProfileMain$$Lambda$46.0x00007fb4fc03c8b0.run", "java.lang.Thread.run"),
                    List.of("java.lang.Object.wait", "java.lang.ref.ReferenceQueue.remove",
                            "java.lang.ref.ReferenceQueue.remove", "java.lang.ref.Finalizer$FinalizerThread.run"),
                    List.of("fixture.ProfileMain$MatrixWorkload.multiply", "fixture.ProfileMain.busyLoop",
                            "fixture.ProfileMain.main"),
                    List.of("java.lang.StringConcatHelper.newString",
                            "java.lang.invoke.DirectMethodHandle$Holder.invokeStatic",
                            "java.lang.invoke.LambdaForm$MH.0x00007fb4fc085400.invoke",
                            "java.lang.invoke.Invokers$Holder.linkToTargetMethod",
                            "fixture.ProfileMain.hashStringsLoop", "fixture.ProfileMain.busyLoop",
                            "fixture.ProfileMain.main")),
            "java-8.43.0/003", List.of(
                    List.of("fixture.ProfileMain.computePrimesSieve", "fixture.ProfileMain.busyLoop",
                            "fixture.ProfileMain.main"),
                    List.of("java.lang.ref.Reference.waitForReferencePendingList",
                            "java.lang.ref.Reference.processPendingReferences",
                            "java.lang.ref.Reference$ReferenceHandler.run"),
                    List.of("io.sentry.asyncprofiler.convert.JfrAsyncProfilerToSentryProfileConverter"
                            + "$ProfileEventVisitor.extractSanitizedClassName"),
                    List.of("one.jfr.JfrReader.ensureBytes", "one.jfr.JfrReader.readEvent",
                            "one.convert.JfrConverter.collectEvents", "one.convert.JfrConverter.convert",
                            "io.sentry.asyncprofiler.convert.JfrAsyncProfilerToSentryProfileConverter"
                                    + ".convertFromFileStatic",
                            "io.sentry.asyncprofiler.provider.AsyncProfilerProfileConverterProvider"
                                    + "$AsyncProfilerProfileConverter.convertFromFile",
                            "io.sentry.SentryEnvelopeItem.lambda$fromProfileChunk$15",
                            "io.sentry.SentryEnvelopeItem$$Lambda$49.0x00007fb4fc0812b0.call",
                            "io.sentry.SentryEnvelopeItem$CachedItem.getBytes",
                            "io.sentry.SentryEnvelopeItem.lambda$fromProfileChunk$17",
                            "io.sentry.SentryEnvelopeItem$$Lambda$51.0x00007fb4fc0818f8.call",
                            "io.sentry.SentryEnvelopeItem.getData", "io.sentry.JsonSerializer.serialize",
                            "io.sentry.transport.HttpConnection.send",
                            "io.sentry.transport.AsyncHttpTransport$EnvelopeSender.flush",
                            "io.sentry.transport.AsyncHttpTransport$EnvelopeSender.run",
                            "java.util.concurrent.Executors$RunnableAdapter.call",
                            "java.util.concurrent.FutureTask.run", "java.util.concurrent.ThreadPoolExecutor.runWorker",
                            "java.util.concurrent.ThreadPoolExecutor$Worker.run", "java.lang.Thread.run"),
                    List.of("java.util.concurrent.ConcurrentSkipListSet.<init>", "java.net.InetAddress.<clinit>",
                            "java.net.InetSocketAddress.<init>", "sun.net.NetworkClient.doConnect",
                            "sun.net.www.http.HttpClient.openServer", "sun.net.www.http.HttpClient.openServer",
                            "sun.net.www.http.HttpClient.<init>", "sun.net.www.http.HttpClient.New",
                            "sun.net.www.http.HttpClient.New",
                            "sun.net.www.protocol.http.HttpURLConnection.getNewHttpClient",
                            "sun.net.www.protocol.http.HttpURLConnection.plainConnect0",
                            "sun.net.www.protocol.http.HttpURLConnection.plainConnect",
                            "sun.net.www.protocol.http.HttpURLConnection.connect",
                            "io.sentry.transport.HttpConnection.createConnection",
                            "io.sentry.transport.HttpConnection.send",
                            "io.sentry.transport.AsyncHttpTransport$EnvelopeSender.flush",
                            "io.sentry.transport.AsyncHttpTransport$EnvelopeSender.run",
                            "java.util.concurrent.Executors$RunnableAdapter.call",
                            "java.util.concurrent.FutureTask.run", "java.util.concurrent.ThreadPoolExecutor.runWorker",
                            "java.util.concurrent.ThreadPoolExecutor$Worker.run", "java.lang.Thread.run")),
            "node-11.1.0-long/001", List.of(
                    List.of("computePrimesSieve", "busyLoop", "main", "<anonymous>", "Module._compile",
                            "Module._extensions..js", "Module.load", "Module._load", "executeUserEntryPoint",
                            "<anonymous>", "(root)"),
                    List.of("fibonacciRecursive", "(root)")),
            "node-11.1.0-long/002", List.of(
                    List.of("Bindings.startProfiling", "_startChunkProfiling", "_restartChunkProfiling",
                            "processImmediate", "callbackTrampoline", "(root)"),
                    List.of("sortRandomArrays", "busyLoop", "(root)")),
            "node-11.1.0-long/003", List.of(
                    List.of("<anonymous>", "sortRandomArrays", "busyLoop", "(root)"),
                    List.of("multiply", "busyLoop", "(root)")),
            "node-11.1.0/003", List.of(
                    List.of("Bindings.startProfiling", "_startChunkProfiling", "_startProfiler", "start",
                            "startProfiler", "main", "<anonymous>", "Module._compile", "Module._extensions..js",
                            "Module.load", "Module._load", "executeUserEntryPoint", "<anonymous>", "(root)"),
                    List.of("(idle)", "(root)"),
                    List.of("multiply", "busyLoop", "(root)")),
            "python-2.75.0/002", List.of(
                    List.of("threading.Condition.wait", "threading.Event.wait",
                            "chunk_relay_workload.Inventory.await_delivery", "chunk_relay_workload.in_span",
                            "chunk_relay_workload.Workload.run.<locals>.<lambda>", "threading.Thread.run",
                            "sentry_sdk.integrations.threading._wrap_run.<locals>.run.<locals>._run_old_run_func",
                            "sentry_sdk.integrations.threading._wrap_run.<locals>.run",
                            "threading.Thread._bootstrap_inner", "threading.Thread._bootstrap"),
                    List.of("chunk_relay_workload.sieve", "chunk_relay_workload.Inventory.restock",
                            "chunk_relay_workload.in_span", "chunk_relay_workload.Workload.run", "__main__.main",
                            "__main__.<module>")),
            "relay/sample_v2_valid.json", List.of(List.of("")),
            "vroomrs/sample__v2__valid_cocoa.json", List.of(List.of("")),
            "vroomrs/sample__v2__valid_android.json", List.of(
                    List.of("io.sentry.samples.android.MainActivity.fibonacci",
                            "io.sentry.samples.android.MainActivity.onCreate", "android.app.ActivityThread.main"),
                    List.of("__start_thread")));

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void namesRecordedFramesAsProfilersShowThem(FixtureChunks.Normalised fixture) {
        OtlpView view = new OtlpView(translate(fixture.chunk()));
        Set<List<String>> stacks = new HashSet<>();
        for (Sample sample : view.profile.getSamplesList()) {
            stacks.add(view.functionNames(sample));
        }
        List<List<String>> literal = LITERAL_STACKS.get(fixture.name());
        assertTrue(literal != null, "literal stacks for " + fixture.name());
        for (List<String> stack : literal) {
            assertTrue(stacks.contains(stack), stack + " among the stacks of " + fixture.name());
        }
    }

    /**
     * A recorded Python frame in full: {@code module.Class.method}, the file as sentry-sdk's {@code abs_path}, its
     * line, the {@code cpython} frame type of the semantic conventions, and the SDK's module and in-app flag.
     */
    @Test
    void describesRecordedPythonFramesWithFileLineFrameTypeAndInApp() {
        OtlpView view = new OtlpView(translate(FixtureChunks.sdkChunk("python-2.75.0/002").chunk()));
        Location restock = view.dictionary.getLocationTableList().stream()
                .filter(l -> view.functionName(l).equals("chunk_relay_workload.Inventory.restock"))
                .findFirst().orElseThrow();
        Function function = view.dictionary.getFunctionTable(restock.getLines(0).getFunctionIndex());

        assertEquals("/srv/example/app/chunk_relay_workload.py", view.string(function.getFilenameStrindex()));
        assertTrue(restock.getLines(0).getLine() > 0);
        Map<String, AnyValue> attributes = view.attributes(restock);
        assertEquals("cpython", attributes.get(OtlpAttributes.PROFILE_FRAME_TYPE).getStringValue());
        assertEquals("chunk_relay_workload", attributes.get(OtlpAttributes.SENTRY_FRAME_MODULE).getStringValue());
        assertTrue(attributes.get(OtlpAttributes.SENTRY_FRAME_IN_APP).getBoolValue());
        Location wait = view.dictionary.getLocationTableList().stream()
                .filter(l -> view.functionName(l).equals("threading.Condition.wait")).findFirst().orElseThrow();
        // sentry-sdk marks frames under the project root in-app and leaves the standard library's unmarked
        assertFalse(view.attributes(wait).containsKey(OtlpAttributes.SENTRY_FRAME_IN_APP));
    }
}
