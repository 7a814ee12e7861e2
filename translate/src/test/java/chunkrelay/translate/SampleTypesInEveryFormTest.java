package chunkrelay.translate;

import chunkrelay.chunk.SampledTime;
import chunkrelay.translate.view.CollapsedStacksWriter;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.OtlpViewWriter;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.SpeedscopeWriter;
import chunkrelay.translate.view.ViewFilter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.perftools.profiles.ProfileProto;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a sample measured (wall-clock or CPU time) and the frame of a tick without a stack, in the OTLP form and in
 * every export of it: they agree, and samples of the two types are never counted as one.
 */
class SampleTypesInEveryFormTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MS = 1_000_000L;

    /** 10 ticks 10 ms apart on one thread: 4 in {@code work}, 6 with an empty stack. */
    private static ExportProfilesServiceRequest chunk(SampledTime sampledTime, String thread) {
        TestChunk chunk = new TestChunk().platform("android").sampledTime(sampledTime);
        int work = chunk.stack(chunk.frame(TestChunk.function("work", "App.java", 3)));
        int empty = chunk.stack();
        for (int tick = 0; tick < 10; tick++) {
            chunk.sample(tick * 10 * MS, tick < 4 ? work : empty, thread);
        }
        chunk.thread(thread, "main", null);
        return TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1));
    }

    private static MergedProfile merge(ExportProfilesServiceRequest... requests) {
        ProfileMerger merger = new ProfileMerger(ViewFilter.all());
        for (ExportProfilesServiceRequest request : requests) {
            merger.add(request);
        }
        return merger.result();
    }

    /** Samples per (period type, leaf function) in an OTLP request, values or timestamps counted. */
    private static Map<String, Long> otlpCounts(ExportProfilesServiceRequest request) {
        OtlpView view = new OtlpView(request);
        Map<String, Long> counts = new TreeMap<>();
        for (Profile profile : request.getResourceProfiles(0).getScopeProfiles(0).getProfilesList()) {
            String type = view.string(profile.getPeriodType().getTypeStrindex());
            assertEquals("samples", view.string(profile.getSampleType().getTypeStrindex()));
            assertEquals("count", view.string(profile.getSampleType().getUnitStrindex()));
            assertEquals("nanoseconds", view.string(profile.getPeriodType().getUnitStrindex()));
            for (Sample sample : profile.getSamplesList()) {
                long n = sample.getValuesCount() > 0 ? sample.getValues(0) : sample.getTimestampsUnixNanoCount();
                counts.merge(type + " " + leaf(request, sample), n, Long::sum);
            }
        }
        return counts;
    }

    private static String leaf(ExportProfilesServiceRequest request, Sample sample) {
        var dictionary = request.getDictionary();
        int location = dictionary.getStackTable(sample.getStackIndex()).getLocationIndices(0);
        int function = dictionary.getLocationTable(location).getLines(0).getFunctionIndex();
        return dictionary.getStringTable(dictionary.getFunctionTable(function).getNameStrindex());
    }

    @Test
    void wallClockChunksSayWallAndNameTheirEmptyStacksIdle() {
        assertEquals(Map.of("wall work", 4L, "wall [idle]", 6L), otlpCounts(chunk(SampledTime.WALL_CLOCK, "1")));
    }

    @Test
    void cpuTimeChunksSayCpuAndNeverCallATickIdle() {
        assertEquals(Map.of("cpu work", 4L, "cpu [no stack]", 6L), otlpCounts(chunk(SampledTime.CPU, "1")));
    }

    @Test
    void everyExportOfAMergeOfBothTypesKeepsThemApartAsTheOtlpFormsSayThem() throws Exception {
        ExportProfilesServiceRequest wall = chunk(SampledTime.WALL_CLOCK, "1");
        ExportProfilesServiceRequest cpu = chunk(SampledTime.CPU, "2");
        MergedProfile merged = merge(wall, cpu);
        Map<String, Long> expected = new TreeMap<>(otlpCounts(wall));
        otlpCounts(cpu).forEach((key, n) -> expected.merge(key, n, Long::sum));

        // the OTLP view: one profile per type, the same counts
        assertEquals(expected, otlpCounts(OtlpViewWriter.build(merged, "chunk-relay")));

        // pprof: one time column per type, each sample's time in its own type's column only
        ProfileProto.Profile pprof = PprofWriter.toProto(merged);
        List<String> columns = new ArrayList<>();
        for (ProfileProto.ValueType type : pprof.getSampleTypeList()) {
            columns.add(pprof.getStringTable((int) type.getType()) + "/" + pprof.getStringTable((int) type.getUnit()));
        }
        assertEquals(List.of("samples/count", "cpu/nanoseconds", "wall/nanoseconds"), columns);
        assertEquals("samples", pprof.getStringTable((int) pprof.getDefaultSampleType()),
                "a mixed range does not default to one type's time");
        Map<String, Long> pprofCounts = new TreeMap<>();
        for (ProfileProto.Sample sample : pprof.getSampleList()) {
            String type = sample.getValue(1) > 0 ? "cpu" : "wall";
            assertEquals(0, sample.getValue(1) > 0 ? sample.getValue(2) : sample.getValue(1),
                    "no sample counts in both types");
            long period = type.equals("cpu") ? 1_000_000_000L / 101 : 10 * MS;
            assertEquals(sample.getValue(0) * period, sample.getValue(1) + sample.getValue(2));
            long function = pprof.getLocation((int) sample.getLocationId(0) - 1).getLine(0).getFunctionId();
            String name = pprof.getStringTable((int) pprof.getFunction((int) function - 1).getName());
            pprofCounts.merge(type + " " + name, sample.getValue(0), Long::sum);
        }
        assertEquals(expected, pprofCounts);

        // speedscope and the page: each thread says what its samples measured, its frames as the OTLP form names them
        ByteArrayOutputStream speedscope = new ByteArrayOutputStream();
        SpeedscopeWriter.write(merged, "mixed", speedscope);
        JsonNode json = JSON.readTree(speedscope.toByteArray());
        Map<String, Long> speedscopeCounts = new TreeMap<>();
        for (JsonNode thread : json.path("profiles")) {
            assertEquals(1, thread.path("sampleTypes").size());
            String type = thread.path("sampleTypes").get(0).asText();
            for (int i = 0; i < thread.path("samples").size(); i++) {
                JsonNode stack = thread.path("samples").get(i);
                String name = json.path("shared").path("frames").get(stack.get(stack.size() - 1).asInt())
                        .path("name").asText();
                speedscopeCounts.merge(type + " " + name, thread.path("counts").get(i).asLong(), Long::sum);
            }
        }
        assertEquals(expected, speedscopeCounts);

        // collapsed stacks carry no type, but the same frames
        StringWriter collapsed = new StringWriter();
        CollapsedStacksWriter.write(merged, collapsed);
        assertEquals("[idle] 6\n[no stack] 6\nwork 8\n", collapsed.toString());
    }
}
