package chunkrelay.translate;

import chunkrelay.chunk.DebugImage;
import chunkrelay.chunk.Frame;
import chunkrelay.chunk.Measurement;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.SampledTime;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static chunkrelay.translate.TestChunk.T0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChunkTranslatorTest {
    private static final long MS = 1_000_000L;
    private final ChunkTranslator translator = new ChunkTranslator("chunk-relay", "0.1.0");

    private OtlpView translate(ProfileChunk chunk) {
        return translate(chunk, TranslationContext.forProject(42));
    }

    private OtlpView translate(ProfileChunk chunk, TranslationContext context) {
        var request = translator.translate(chunk, context);
        OtlpInvariants.assertValid(request);
        OtlpInvariants.assertValid(request.toByteArray());
        return new OtlpView(request);
    }

    /** Two samples on one thread, so that Relay would keep them. */
    private static TestChunk twoSamplesOf(TestChunk chunk, int stack, String thread) {
        return chunk.sample(0, stack, thread).sample(10 * MS, stack, thread);
    }

    @Test
    void storesARepeatedFrameAsOneFunctionAndOneLocation() {
        TestChunk chunk = new TestChunk();
        int a = chunk.frame(TestChunk.function("handle", "app.py", 10));
        int b = chunk.frame(TestChunk.function("handle", "app.py", 10));
        int c = chunk.frame(TestChunk.function("main", "app.py", 3));
        int s0 = chunk.stack(a, c);
        int s1 = chunk.stack(b, c);
        chunk.sample(0, s0, "1").sample(10 * MS, s1, "1");

        OtlpView view = translate(chunk.build());

        assertEquals(3, view.dictionary.getFunctionTableCount(), "zero value, handle, main");
        assertEquals(3, view.dictionary.getLocationTableCount(), "zero value, handle:10, main:3");
        assertEquals(2, view.dictionary.getStackTableCount(), "the two chunk stacks are one stack");
        assertEquals(1, view.profile.getSamplesCount(), "same stack and thread: one sample");
        assertEquals(2, view.profile.getSamples(0).getTimestampsUnixNanoCount());
    }

    @Test
    void keepsOneFunctionForFramesDifferingOnlyInLine() {
        TestChunk chunk = new TestChunk();
        int a = chunk.frame(TestChunk.function("loop", "app.py", 10));
        int b = chunk.frame(TestChunk.function("loop", "app.py", 11));
        twoSamplesOf(chunk, chunk.stack(a, b), "1");

        OtlpView view = translate(chunk.build());

        assertEquals(2, view.dictionary.getFunctionTableCount());
        assertEquals(3, view.dictionary.getLocationTableCount());
        Location leaf = view.locations(view.profile.getSamples(0)).get(0);
        assertEquals(10, leaf.getLines(0).getLine());
    }

    @Test
    void groupsSamplesByStackAndThreadKeepingEveryTimestamp() {
        TestChunk chunk = new TestChunk();
        int f = chunk.frame(TestChunk.function("work", "w.py", 1));
        int g = chunk.frame(TestChunk.function("idle", "w.py", 2));
        int work = chunk.stack(f);
        int idle = chunk.stack(g);
        chunk.sample(0, work, "1").sample(1 * MS, work, "2").sample(10 * MS, idle, "1")
                .sample(11 * MS, work, "2").sample(20 * MS, work, "1");

        OtlpView view = translate(chunk.build());

        List<Sample> samples = view.profile.getSamplesList();
        assertEquals(3, samples.size(), "(work,1), (work,2), (idle,1)");
        assertEquals(List.of(T0, T0 + 20 * MS), samples.get(0).getTimestampsUnixNanoList());
        assertEquals(List.of(T0 + MS, T0 + 11 * MS), samples.get(1).getTimestampsUnixNanoList());
        assertEquals(List.of(T0 + 10 * MS), samples.get(2).getTimestampsUnixNanoList());
        assertEquals(5, view.timestampCount());
        assertTrue(samples.stream().allMatch(s -> s.getValuesCount() == 0), "timestamps only");
    }

    @Test
    void writesDecimalThreadIdsAsIntsAndOtherIdsAsStrings() {
        TestChunk chunk = new TestChunk();
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));
        twoSamplesOf(chunk, s, "259");
        twoSamplesOf(chunk, s, "0x0000000102adc700");
        twoSamplesOf(chunk, s, "007");

        OtlpView view = translate(chunk.build());

        List<Sample> samples = view.profile.getSamplesList();
        assertEquals(AnyValue.newBuilder().setIntValue(259).build(),
                view.attributes(samples.get(0)).get(OtlpAttributes.THREAD_ID));
        assertEquals(AnyValue.newBuilder().setStringValue("0x0000000102adc700").build(),
                view.attributes(samples.get(1)).get(OtlpAttributes.THREAD_ID));
        assertEquals(AnyValue.newBuilder().setStringValue("007").build(),
                view.attributes(samples.get(2)).get(OtlpAttributes.THREAD_ID),
                "a leading zero would be lost as an int, so the id stays a string");
    }

    @Test
    void addsThreadNameAndPriorityFromThreadMetadata() {
        TestChunk chunk = new TestChunk().thread("1", "main", 5).thread("2", null, 10);
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));
        twoSamplesOf(chunk, s, "1");
        twoSamplesOf(chunk, s, "2");
        twoSamplesOf(chunk, s, "3");

        OtlpView view = translate(chunk.build());

        Map<String, AnyValue> main = view.attributes(view.profile.getSamples(0));
        assertEquals("main", main.get(OtlpAttributes.THREAD_NAME).getStringValue());
        assertEquals(5, main.get(OtlpAttributes.SENTRY_THREAD_PRIORITY).getIntValue());
        Map<String, AnyValue> unnamed = view.attributes(view.profile.getSamples(1));
        assertFalse(unnamed.containsKey(OtlpAttributes.THREAD_NAME));
        assertEquals(10, unnamed.get(OtlpAttributes.SENTRY_THREAD_PRIORITY).getIntValue());
        assertEquals(List.of(OtlpAttributes.THREAD_ID),
                List.copyOf(view.attributes(view.profile.getSamples(2)).keySet()));
    }

    @Test
    void takesTheMedianGapBetweenSamplesOfTheSameThreadAsTheWallClockPeriod() {
        TestChunk chunk = new TestChunk();
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));
        // thread 1 every 10 ms with one 40 ms pause, thread 2 offset by 3 ms: cross-thread gaps are 3 and 7 ms
        chunk.sample(0, s, "1").sample(3 * MS, s, "2").sample(10 * MS, s, "1").sample(13 * MS, s, "2")
                .sample(20 * MS, s, "1").sample(23 * MS, s, "2").sample(60 * MS, s, "1");

        OtlpView view = translate(chunk.build());

        assertEquals(10 * MS, view.profile.getPeriod());
        assertEquals("wall", view.string(view.profile.getPeriodType().getTypeStrindex()));
        assertEquals("nanoseconds", view.string(view.profile.getPeriodType().getUnitStrindex()));
        assertEquals("samples", view.string(view.profile.getSampleType().getTypeStrindex()));
        assertEquals("count", view.string(view.profile.getSampleType().getUnitStrindex()));
    }

    @Test
    void labelsACpuTimeProfilerCpuWithItsConfiguredPeriodNotItsThreadsGaps() {
        TestChunk chunk = new TestChunk().platform("android").sampledTime(SampledTime.CPU);
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "App.java", 1)));
        // a thread on a CPU now and then: its gaps hold the time it waited, which is no CPU time
        chunk.sample(0, s, "1").sample(50 * MS, s, "1").sample(100 * MS, s, "1");

        OtlpView view = translate(chunk.build());

        assertEquals("cpu", view.string(view.profile.getPeriodType().getTypeStrindex()));
        assertEquals(1_000_000_000L / 101, view.profile.getPeriod());
    }

    @Test
    void fallsBackTo101HertzWhenNoThreadShowsAnInterval() {
        TestChunk chunk = new TestChunk();
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));
        chunk.sample(0, s, "1").sample(0, s, "1").sample(5 * MS, s, "2");

        OtlpView view = translate(chunk.build());

        assertEquals(9_900_990L, view.profile.getPeriod());
    }

    @Test
    void coversEveryTimestampFromFirstSampleToOnePeriodAfterTheLast() {
        TestChunk chunk = new TestChunk();
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));
        chunk.sample(0, s, "1").sample(10 * MS, s, "1").sample(20 * MS, s, "1");

        Profile profile = translate(chunk.build()).profile;

        assertEquals(T0, profile.getTimeUnixNano());
        assertEquals(30 * MS, profile.getDurationNano());
    }

    @Test
    void usesTheChunkIdAsProfileId() {
        TestChunk chunk = new TestChunk();
        twoSamplesOf(chunk, chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1))), "1");

        Profile profile = translate(chunk.build()).profile;

        assertArrayEquals(TestChunk.CHUNK_ID.toBytes(), profile.getProfileId().toByteArray());
        assertEquals(16, profile.getProfileId().size());
    }

    @Test
    void namesTheFileFromAbsPathElseFilenameElseModule() {
        TestChunk chunk = new TestChunk();
        int a = chunk.frame(new Frame("a", "mod.a", "a.js", "/srv/a.js", 1, 2, null, null, null));
        int b = chunk.frame(new Frame("b", "mod.b", "b.js", null, 3, null, null, null, null));
        int c = chunk.frame(new Frame("c", "mod.c", null, null, null, null, null, null, null));
        twoSamplesOf(chunk, chunk.stack(a, b, c), "1");

        OtlpView view = translate(chunk.build());

        List<Location> locations = view.locations(view.profile.getSamples(0));
        assertEquals(List.of("/srv/a.js", "b.js", "mod.c"), locations.stream()
                .map(l -> view.string(view.dictionary.getFunctionTable(l.getLines(0).getFunctionIndex())
                        .getFilenameStrindex()))
                .toList());
        assertEquals(1, locations.get(0).getLines(0).getLine());
        assertEquals(2, locations.get(0).getLines(0).getColumn());
        assertEquals(0, locations.get(2).getLines(0).getLine(), "0 means unknown");
    }

    @Test
    void namesJvmFramesPackageClassMethodWithTheJniSignatureAsSystemName() {
        TestChunk chunk = new TestChunk().platform("android");
        int art = chunk.frame(new Frame("onCreate", "io.example.Main", "Main.java", null, null, null, null, null, null,
                "(Landroid/os/Bundle;)V"));
        int inner = chunk.frame(new Frame("run", "io.example.Main", "io.example.Main$Worker", null, 7, null, null,
                null, "java"));
        int python = chunk.frame(new Frame("handle", "app", "app.py", null, 3, null, null, null, "python"));
        twoSamplesOf(chunk, chunk.stack(art, inner, python), "1");

        OtlpView view = translate(chunk.build());

        List<Location> locations = view.locations(view.profile.getSamples(0));
        List<Function> functions = locations.stream()
                .map(l -> view.dictionary.getFunctionTable(l.getLines(0).getFunctionIndex())).toList();
        // the Python frame is named as Python names it (see namesPythonFramesModuleThenQualifiedName)
        assertEquals(List.of("io.example.Main.onCreate", "io.example.Main$Worker.run", "app.handle"),
                functions.stream().map(f -> view.string(f.getNameStrindex())).toList());
        assertEquals(List.of("io.example.Main.onCreate(Landroid/os/Bundle;)V", "", ""),
                functions.stream().map(f -> view.string(f.getSystemNameStrindex())).toList());
        assertEquals("io.example.Main", view.attributes(locations.get(0)).get(OtlpAttributes.SENTRY_FRAME_MODULE)
                .getStringValue(), "the class stays in sentry.frame.module");
        assertEquals("jvm", view.attributes(locations.get(0)).get(OtlpAttributes.PROFILE_FRAME_TYPE).getStringValue());
    }

    @Test
    void keepsInAppModuleAndFramePlatformAsLocationAttributes() {
        TestChunk chunk = new TestChunk().platform("android");
        int java = chunk.frame(new Frame("onCreate", "io.example.Main", null, null, 42, null, true, null, null));
        int lib = chunk.frame(new Frame("__start_thread", null, null, null, null, null, false, 0x7f9281a000L,
                "native"));
        twoSamplesOf(chunk, chunk.stack(java, lib), "1");

        OtlpView view = translate(chunk.build());

        List<Location> locations = view.locations(view.profile.getSamples(0));
        Map<String, AnyValue> javaAttributes = view.attributes(locations.get(0));
        assertEquals("jvm", javaAttributes.get(OtlpAttributes.PROFILE_FRAME_TYPE).getStringValue());
        assertTrue(javaAttributes.get(OtlpAttributes.SENTRY_FRAME_IN_APP).getBoolValue());
        assertEquals("io.example.Main", javaAttributes.get(OtlpAttributes.SENTRY_FRAME_MODULE).getStringValue());
        assertFalse(javaAttributes.containsKey(OtlpAttributes.SENTRY_FRAME_PLATFORM));
        Map<String, AnyValue> nativeAttributes = view.attributes(locations.get(1));
        assertEquals("native", nativeAttributes.get(OtlpAttributes.PROFILE_FRAME_TYPE).getStringValue());
        assertFalse(nativeAttributes.get(OtlpAttributes.SENTRY_FRAME_IN_APP).getBoolValue());
        assertEquals("native", nativeAttributes.get(OtlpAttributes.SENTRY_FRAME_PLATFORM).getStringValue());
        assertEquals(0x7f9281a000L, locations.get(1).getAddress());
    }

    @Test
    void mapsEachSentryPlatformToItsFrameType() {
        Map<String, String> expected = Map.ofEntries(Map.entry("python", "cpython"), Map.entry("node", "v8js"),
                Map.entry("javascript", "v8js"), Map.entry("java", "jvm"), Map.entry("android", "jvm"),
                Map.entry("cocoa", "native"), Map.entry("native", "native"), Map.entry("ruby", "ruby"),
                Map.entry("php", "php"), Map.entry("dotnet", "dotnet"), Map.entry("go", "go"),
                Map.entry("rust", "rust"));
        expected.forEach((platform, frameType) -> {
            TestChunk chunk = new TestChunk().platform(platform);
            twoSamplesOf(chunk, chunk.stack(chunk.frame(TestChunk.function("f", "f.x", 1))), "1");
            OtlpView view = translate(chunk.build());
            Location location = view.locations(view.profile.getSamples(0)).get(0);
            assertEquals(frameType, view.attributes(location).get(OtlpAttributes.PROFILE_FRAME_TYPE).getStringValue(),
                    platform);
        });
    }

    @Test
    void attachesAnAddressToTheImageThatContainsIt() {
        TestChunk chunk = new TestChunk().platform("cocoa")
                .image(new DebugImage("macho", 0x1000L, 0x1000L, 0x100000000L, "/app/App",
                        "32420279-25E2-34E6-8BC7-8A006A8F2425", null, null, "arm64e"))
                .image(new DebugImage("macho", 0x3000L, 0x800L, null, "/usr/lib/libobjc.dylib",
                        null, "abc123", null, null))
                .image(new DebugImage("macho", 0x9000L, 0x100L, null, "/unused", "unused-id", null, null, null));
        int inApp = chunk.frame(TestChunk.address(0x1ffcL));
        int inLib = chunk.frame(TestChunk.address(0x3000L));
        int atAppLimit = chunk.frame(TestChunk.address(0x2000L));
        twoSamplesOf(chunk, chunk.stack(inApp, inLib, atAppLimit), "1");

        OtlpView view = translate(chunk.build());

        List<Location> locations = view.locations(view.profile.getSamples(0));
        Mapping app = view.dictionary.getMappingTable(locations.get(0).getMappingIndex());
        assertEquals(0x1000L, app.getMemoryStart());
        assertEquals(0x2000L, app.getMemoryLimit());
        assertEquals("/app/App", view.string(app.getFilenameStrindex()));
        Map<String, AnyValue> appAttributes = view.attributes(app.getAttributeIndicesList());
        assertEquals("32420279-25E2-34E6-8BC7-8A006A8F2425",
                appAttributes.get(OtlpAttributes.SENTRY_IMAGE_DEBUG_ID).getStringValue());
        assertEquals("macho", appAttributes.get(OtlpAttributes.SENTRY_IMAGE_TYPE).getStringValue());
        assertEquals("arm64e", appAttributes.get(OtlpAttributes.SENTRY_IMAGE_ARCH).getStringValue());
        assertEquals(0x100000000L, appAttributes.get(OtlpAttributes.SENTRY_IMAGE_VMADDR).getIntValue());
        Mapping lib = view.dictionary.getMappingTable(locations.get(1).getMappingIndex());
        assertEquals("/usr/lib/libobjc.dylib", view.string(lib.getFilenameStrindex()));
        assertEquals("abc123", view.attributes(lib.getAttributeIndicesList())
                .get(OtlpAttributes.SENTRY_IMAGE_CODE_ID).getStringValue());
        assertEquals(0, locations.get(2).getMappingIndex(), "the limit is outside the image");
        assertEquals(0x2000L, locations.get(2).getAddress());
        assertEquals(3, view.dictionary.getMappingTableCount(), "the image no frame lies in is left out");
        assertEquals(0, locations.get(0).getLinesCount(), "an unsymbolicated frame has no function to name");
    }

    @Test
    void leavesOutStacksAndFramesNoSampleReaches() {
        TestChunk chunk = new TestChunk();
        int used = chunk.frame(TestChunk.function("used", "u.py", 1));
        int unused = chunk.frame(TestChunk.function("unused", "u.py", 2));
        chunk.stack(unused);
        int s = chunk.stack(used);
        twoSamplesOf(chunk, s, "1");

        OtlpView view = translate(chunk.build());

        assertEquals(2, view.dictionary.getStackTableCount());
        assertFalse(view.dictionary.getStringTableList().contains("unused"));
    }

    @Test
    void givesWallClockSamplesWithAnEmptyStackTheIdleFrame() {
        TestChunk chunk = new TestChunk().platform("javascript");
        int empty = chunk.stack();
        int s = chunk.stack(chunk.frame(TestChunk.function("run", "t.js", 1)));
        chunk.sample(0, empty, "1").sample(10 * MS, s, "1").sample(20 * MS, s, "1");

        OtlpView view = translate(chunk.build());

        assertEquals(List.of("[idle]"), view.functionNames(view.profile.getSamples(0)));
        Location idle = view.dictionary.getLocationTable(
                view.dictionary.getStackTable(view.profile.getSamples(0).getStackIndex()).getLocationIndices(0));
        assertEquals("v8js", view.attributes(idle).get("profile.frame.type").getStringValue());
        assertEquals(3, view.timestampCount());
    }

    @Test
    void namesAnonymousFunctionsAsSentrysUiShowsThem() {
        TestChunk chunk = new TestChunk().platform("node");
        Frame anonymous = new Frame("", null, "app.js", "/srv/app.js", 3, 7, null, null, null);
        int s = chunk.stack(chunk.frame(anonymous), chunk.frame(TestChunk.function("main", "app.js", 1)));
        twoSamplesOf(chunk, s, "0");

        OtlpView view = translate(chunk.build());

        assertEquals(List.of("<anonymous>", "main"), view.functionNames(view.profile.getSamples(0)));
        assertFalse(view.functionNames(view.profile.getSamples(0)).contains(""));
    }

    @Test
    void namesUnnamedFramesWithAFileOfOtherPlatformsUnknown() {
        TestChunk chunk = new TestChunk().platform("python");
        twoSamplesOf(chunk, chunk.stack(chunk.frame(new Frame(null, "app", "app.py", null, 3, null, null, null,
                null))), "1");

        OtlpView view = translate(chunk.build());

        assertEquals(List.of("<unknown>"), view.functionNames(view.profile.getSamples(0)));
    }

    @Test
    void keepsMeasurementsAsProfileAttributesWithUcumUnits() {
        TestChunk chunk = new TestChunk()
                .measurement("memory_footprint", new Measurement("byte", new double[] {1.5, 2.5}, new double[] {100, 200}))
                .measurement("cpu_usage", new Measurement("percent", new double[] {1.5}, new double[] {0.25}));
        twoSamplesOf(chunk, chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1))), "1");

        OtlpView view = translate(chunk.build());

        List<KeyValueAndUnit> attributes = view.profile.getAttributeIndicesList().stream()
                .map(view.dictionary::getAttributeTable).toList();
        assertEquals(List.of("sentry.profiler_id", "sentry.measurement.cpu_usage",
                        "sentry.measurement.memory_footprint"),
                attributes.stream().map(a -> view.string(a.getKeyStrindex())).toList());
        assertEquals(List.of("", "%", "By"), attributes.stream().map(a -> view.string(a.getUnitStrindex())).toList());
        var series = attributes.get(2).getValue().getKvlistValue();
        assertEquals("timestamps", series.getValues(0).getKey());
        assertEquals(List.of(1.5, 2.5), series.getValues(0).getValue().getArrayValue().getValuesList().stream()
                .map(AnyValue::getDoubleValue).toList());
        assertEquals("values", series.getValues(1).getKey());
        assertEquals(List.of(100.0, 200.0), series.getValues(1).getValue().getArrayValue().getValuesList().stream()
                .map(AnyValue::getDoubleValue).toList());
    }

    @Test
    void describesTheServiceAndSdkInResourceAttributesAndTheProfilerSessionInAProfileAttribute() {
        TestChunk chunk = new TestChunk().platform("node").release("shop@1.2.3").environment("staging")
                .sdk("sentry.javascript.node", "11.1.0");
        twoSamplesOf(chunk, chunk.stack(chunk.frame(TestChunk.function("run", "t.js", 1))), "0");

        OtlpView view = translate(chunk.build(), TranslationContext.forProject(42));

        assertEquals(Map.of(
                "service.name", "shop",
                "service.version", "shop@1.2.3",
                "deployment.environment.name", "staging",
                "telemetry.sdk.name", "sentry.javascript.node",
                "telemetry.sdk.version", "11.1.0",
                "telemetry.sdk.language", "nodejs",
                "process.runtime.name", "node",
                "sentry.project_id", "42"), view.resource());
        assertEquals("4d229f1d3807421ba62a5f8bc295d836", view.attributes(view.profile.getAttributeIndicesList())
                .get("sentry.profiler_id").getStringValue());
        var scope = view.request.getResourceProfiles(0).getScopeProfiles(0).getScope();
        assertEquals("chunk-relay", scope.getName());
        assertEquals("0.1.0", scope.getVersion());
    }

    @Test
    void takesServiceNameFromOverrideElseReleasePackageElseUnknownService() {
        assertEquals("checkout", serviceName("shop@1.2.3", TranslationContext.forProject(1).withServiceName("checkout")));
        assertEquals("shop", serviceName("shop@1.2.3", TranslationContext.forProject(1).withServiceName(" ")));
        assertEquals("io.sentry.samples.android", serviceName("io.sentry.samples.android@8.0.0+1",
                TranslationContext.forProject(1)));
        assertEquals("unknown_service", serviceName("0.1 (199)", TranslationContext.forProject(1)));
        assertEquals("unknown_service", serviceName("@1.0", TranslationContext.forProject(1)));
        assertEquals("unknown_service", serviceName(null, TranslationContext.forProject(1)));
    }

    private String serviceName(String release, TranslationContext context) {
        TestChunk chunk = new TestChunk().release(release);
        twoSamplesOf(chunk, chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1))), "1");
        return translate(chunk.build(), context).resource().get("service.name");
    }

    @Test
    void leavesOutResourceAttributesTheChunkDoesNotCarry() {
        TestChunk chunk = new TestChunk().release(null).environment(null);
        twoSamplesOf(chunk, chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1))), "1");

        Map<String, String> resource = translate(chunk.build()).resource();

        assertFalse(resource.containsKey("service.version"));
        assertFalse(resource.containsKey("deployment.environment.name"));
    }

    @Test
    void refusesAChunkWithoutSamples() {
        TestChunk chunk = new TestChunk();
        chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));

        var error = assertThrows(IllegalArgumentException.class,
                () -> translator.translate(chunk.build(), TranslationContext.forProject(1)));
        assertTrue(error.getMessage().contains("no samples"), error.getMessage());
    }

    @Test
    void namesPythonFramesModuleThenQualifiedName() {
        TestChunk chunk = new TestChunk().platform("python");
        int method = chunk.frame(new Frame("Inventory.restock", "shop.stock", "shop/stock.py", "/srv/shop/stock.py",
                12, null, true, null, null));
        int nested = chunk.frame(new Frame("outer.<locals>.inner", "shop.jobs", "shop/jobs.py", null, 3, null, null,
                null, null));
        int script = chunk.frame(new Frame("<module>", "__main__", "main.py", null, 1, null, null, null, null));
        int qualified = chunk.frame(new Frame("shop.jobs.run", "shop.jobs", "shop/jobs.py", null, 9, null, null,
                null, null));
        int noModule = chunk.frame(new Frame("handler", null, "handler.py", null, 5, null, null, null, null));
        twoSamplesOf(chunk, chunk.stack(method, nested, script, qualified, noModule), "1");

        OtlpView view = translate(chunk.build());

        assertEquals(List.of("shop.stock.Inventory.restock", "shop.jobs.outer.<locals>.inner", "__main__.<module>",
                "shop.jobs.run", "handler"), view.functionNames(view.profile.getSamples(0)));
    }
}
