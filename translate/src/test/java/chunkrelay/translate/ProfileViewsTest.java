package chunkrelay.translate;

import chunkrelay.chunk.spans.SpanRecord;
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
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 16's conversions: the archived OTLP form of every fixture, alone and merged, read back by {@code go tool
 * pprof} (Debian's golang-go) with the same sample count and function names, speedscope JSON valid against
 * speedscope's own schema, and collapsed stacks of a small chunk as computed by hand.
 */
@Tag("external")
class ProfileViewsTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ExportProfilesServiceRequest otlp(FixtureChunks.Normalised chunk) {
        return TRANSLATOR.translate(chunk.chunk(), TranslationContext.forProject(1));
    }

    private static MergedProfile merge(ViewFilter filter, List<ExportProfilesServiceRequest> requests) {
        ProfileMerger merger = new ProfileMerger(filter);
        requests.forEach(merger::add);
        return merger.result();
    }

    private static long otlpSamples(List<ExportProfilesServiceRequest> requests) {
        long count = 0;
        for (ExportProfilesServiceRequest request : requests) {
            for (Profile profile : request.getResourceProfiles(0).getScopeProfiles(0).getProfilesList()) {
                count += profile.getSamplesList().stream().mapToLong(ProfileViewsTest::samples).sum();
            }
        }
        return count;
    }

    /** A sample's count: its timestamps in a chunk's form, its value in a merged export's aggregated form. */
    private static long samples(io.opentelemetry.proto.profiles.v1development.Sample sample) {
        return sample.getTimestampsUnixNanoCount() > 0 ? sample.getTimestampsUnixNanoCount() : sample.getValues(0);
    }

    private static Set<String> otlpFunctionNames(List<ExportProfilesServiceRequest> requests) {
        Set<String> names = new TreeSet<>();
        for (ExportProfilesServiceRequest request : requests) {
            request.getDictionary().getFunctionTableList().stream().skip(1)
                    .map(f -> request.getDictionary().getStringTable(f.getNameStrindex()))
                    .filter(name -> !name.isEmpty()).forEach(names::add);
        }
        return names;
    }

    private static long emptyStackSamples(List<ExportProfilesServiceRequest> requests) {
        long count = 0;
        for (ExportProfilesServiceRequest request : requests) {
            for (Profile profile : request.getResourceProfiles(0).getScopeProfiles(0).getProfilesList()) {
                for (var sample : profile.getSamplesList()) {
                    if (request.getDictionary().getStackTable(sample.getStackIndex()).getLocationIndicesCount() == 0) {
                        count += samples(sample);
                    }
                }
            }
        }
        return count;
    }

    private static List<ExportProfilesServiceRequest> sdkChunks() {
        List<ExportProfilesServiceRequest> requests = new ArrayList<>();
        for (FixtureChunks.Normalised chunk : FixtureChunks.all()) {
            requests.add(otlp(chunk));
        }
        return requests;
    }

    @Test
    void goToolPprofReadsEveryFixtureAndTheirMergeWithTheOtlpSampleCountAndFunctionNames(@TempDir Path dir)
            throws Exception {
        List<ExportProfilesServiceRequest> all = sdkChunks();
        List<List<ExportProfilesServiceRequest>> cases = new ArrayList<>();
        all.forEach(request -> cases.add(List.of(request)));
        cases.add(all);
        for (List<ExportProfilesServiceRequest> requests : cases) {
            MergedProfile merged = merge(ViewFilter.all(), requests);
            assertEquals(requests.size(), merged.chunks());
            ProfileProto.Profile pprof = PprofWriter.toProto(merged);
            assertEquals(List.of(), PprofInvariants.check(pprof));

            ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
            PprofWriter.write(merged, gzipped);
            Path file = dir.resolve("profile-" + cases.indexOf(requests) + ".pb.gz");
            Files.write(file, gzipped.toByteArray());
            GoPprof.Raw raw = GoPprof.raw(file);
            assertEquals(otlpSamples(requests), raw.sampleCount(), "samples as go tool pprof counts them");
            assertEquals(0, emptyStackSamples(requests), "the translation names every empty stack");
            assertEquals(otlpFunctionNames(requests), raw.functionNames(),
                    "function names as go tool pprof lists them");
        }
    }

    @Test
    void speedscopeExportOfEveryFixtureAndTheirMergeIsValidAgainstSpeedscopesSchema() throws Exception {
        JsonSchema schema;
        try (InputStream in = ProfileViewsTest.class.getResourceAsStream("/speedscope/file-format-schema.json")) {
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(in);
        }
        List<ExportProfilesServiceRequest> all = sdkChunks();
        List<List<ExportProfilesServiceRequest>> cases = new ArrayList<>();
        all.forEach(request -> cases.add(List.of(request)));
        cases.add(all);
        for (List<ExportProfilesServiceRequest> requests : cases) {
            MergedProfile merged = merge(ViewFilter.all(), requests);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            SpeedscopeWriter.write(merged, "fixture", out);
            JsonNode json = JSON.readTree(out.toByteArray());
            Set<ValidationMessage> errors = schema.validate(json);
            assertEquals(Set.of(), errors);
            long samples = 0;
            for (JsonNode profile : json.path("profiles")) {
                assertEquals(profile.path("samples").size(), profile.path("weights").size());
                assertEquals(profile.path("samples").size(), profile.path("counts").size());
                for (JsonNode count : profile.path("counts")) {
                    samples += count.asLong();
                }
            }
            assertEquals(otlpSamples(requests), samples);
            assertEquals(merged.threads().size(), json.path("profiles").size(), "one profile per thread");
        }
    }

    @Test
    void collapsedStacksOfASmallChunkAreTheHandComputedLines() throws IOException {
        TestChunk chunk = new TestChunk();
        int main = chunk.frame(TestChunk.function("main", "app.py", 1));
        int handle = chunk.frame(TestChunk.function("handle", "app.py", 5));
        int query = chunk.frame(TestChunk.function("query", "db.py", 9));
        int leafQuery = chunk.stack(query, handle, main);
        int leafHandle = chunk.stack(handle, main);
        chunk.sample(0, leafQuery, "1").sample(10_000_000, leafQuery, "1").sample(20_000_000, leafHandle, "1")
                .sample(0, leafQuery, "2").sample(30_000_000, leafHandle, "1");
        chunk.thread("1", "main", null).thread("2", "worker", null);
        MergedProfile merged = merge(ViewFilter.all(),
                List.of(TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1))));
        StringWriter out = new StringWriter();
        CollapsedStacksWriter.write(merged, out);
        assertEquals("main;handle 2\nmain;handle;query 3\n", out.toString());

        MergedProfile worker = merge(new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, null, "2", null, null),
                List.of(TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1))));
        StringWriter workerOut = new StringWriter();
        CollapsedStacksWriter.write(worker, workerOut);
        assertEquals("main;handle;query 1\n", workerOut.toString(), "thread filter");

        MergedProfile early = merge(new ViewFilter(TestChunk.T0, TestChunk.T0 + 15_000_000, null, null, null, null),
                List.of(TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1))));
        assertEquals(3, early.sampleCount(), "time range [from, to)");
    }

    @Test
    void wallClockTicksWithAnEmptyStackAreOneIdleFrameInOtlpAndInEveryExport(@TempDir Path dir) throws Exception {
        TestChunk chunk = new TestChunk().platform("javascript");
        int work = chunk.stack(chunk.frame(TestChunk.function("work", "app.js", 1)));
        int idle = chunk.stack();
        for (int ms = 0; ms < 10; ms++) {
            chunk.sample(ms * 1_000_000L, ms < 3 ? work : idle, "0");
        }
        chunk.thread("0", "main", null);
        List<ExportProfilesServiceRequest> request = List.of(TRANSLATOR.translate(chunk.build(),
                TranslationContext.forProject(1)));
        assertEquals(0, emptyStackSamples(request), "the OTLP form names the idle ticks");
        assertEquals(Set.of("work", ProfileTypes.IDLE_FRAME), otlpFunctionNames(request));
        MergedProfile merged = merge(ViewFilter.all(), request);

        StringWriter collapsed = new StringWriter();
        CollapsedStacksWriter.write(merged, collapsed);
        assertEquals(ProfileTypes.IDLE_FRAME + " 7\nwork 3\n", collapsed.toString());

        ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
        PprofWriter.write(merged, gzipped);
        Path file = dir.resolve("idle.pb.gz");
        Files.write(file, gzipped.toByteArray());
        GoPprof.Raw raw = GoPprof.raw(file);
        assertEquals(10, raw.sampleCount(), "go tool pprof counts the idle samples");
        assertEquals(Set.of("work", ProfileTypes.IDLE_FRAME), raw.functionNames());
        assertEquals(List.of(), PprofInvariants.check(PprofWriter.toProto(merged)));

        ByteArrayOutputStream speedscope = new ByteArrayOutputStream();
        SpeedscopeWriter.write(merged, "idle", speedscope);
        JsonNode json = JSON.readTree(speedscope.toByteArray());
        long named = 0;
        JsonNode thread = json.path("profiles").get(0);
        for (int i = 0; i < thread.path("samples").size(); i++) {
            JsonNode sample = thread.path("samples").get(i);
            assertEquals(1, sample.size(), "no sample without a frame");
            if (json.path("shared").path("frames").get(sample.get(0).asInt()).path("name").asText()
                    .equals(ProfileTypes.IDLE_FRAME)) {
                named += thread.path("counts").get(i).asLong();
            }
        }
        assertEquals(7, named);

        ExportProfilesServiceRequest otlp = OtlpViewWriter.build(merged, "chunk-relay");
        assertEquals(List.of(), OtlpInvariants.check(otlp));
        assertEquals(0, emptyStackSamples(List.of(otlp)));
        assertEquals(Set.of("work", ProfileTypes.IDLE_FRAME), otlpFunctionNames(List.of(otlp)));
    }

    @Test
    void linkFiltersKeepTheSamplesOfOneTraceOrSpanAndPprofLabelsThem() throws IOException {
        TestChunk chunk = new TestChunk();
        int stack = chunk.stack(chunk.frame(TestChunk.function("work", "app.py", 1)));
        for (int ms = 0; ms < 10; ms++) {
            chunk.sample(ms * 1_000_000L, stack, "7");
        }
        chunk.thread("7", "main", null);
        String trace = "acaf88a141894171b76154725292c830";
        List<SpanRecord> spans = List.of(
                new SpanRecord(trace, "a000000000000001", null, null, true, null, "7", TestChunk.T0,
                        TestChunk.T0 + 10_000_000),
                new SpanRecord(trace, "b000000000000002", "a000000000000001", null, false, null, "7",
                        TestChunk.T0 + 2_000_000, TestChunk.T0 + 5_000_000));
        ExportProfilesServiceRequest request = TRANSLATOR.translate(chunk.build(),
                TranslationContext.forProject(1).withSpans(SpanTimeline.of(spans)));
        assertEquals(10, merge(new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, null, null, trace, null),
                List.of(request)).sampleCount());
        MergedProfile child = merge(new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, null, null, null,
                "B000000000000002"), List.of(request));
        assertEquals(3, child.sampleCount());
        ProfileProto.Profile pprof = PprofWriter.toProto(child);
        Set<String> labels = new TreeSet<>();
        for (ProfileProto.Label label : pprof.getSample(0).getLabelList()) {
            labels.add(pprof.getStringTable((int) label.getKey()) + "=" + pprof.getStringTable((int) label.getStr()));
        }
        assertEquals(Set.of("span_id=b000000000000002", "thread.id=7", "thread.name=main", "trace_id=" + trace),
                labels);
        assertEquals(0, merge(new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, null, null, null, "c000000000000003"),
                List.of(request)).sampleCount());
    }

    @Test
    void otlpExportOfAMergeKeepsEverySampleAndPassesTheInvariants() {
        List<ExportProfilesServiceRequest> all = sdkChunks();
        ExportProfilesServiceRequest merged = OtlpViewWriter.build(merge(ViewFilter.all(), all), "chunk-relay");
        assertEquals(List.of(), OtlpInvariants.check(merged));
        assertEquals(otlpSamples(all), otlpSamples(List.of(merged)));
        assertEquals(otlpFunctionNames(all), otlpFunctionNames(List.of(merged)));
    }

    /** Debian's {@code go tool pprof}, the external check: it must be installed ({@code .ci/run} does). */
    static final class GoPprof {
        record Raw(long sampleCount, Set<String> functionNames) {
        }

        private static final Pattern SAMPLE = Pattern.compile("^\\s*(\\d+)\\s+(\\d+): ");

        static Raw raw(Path file) throws IOException, InterruptedException {
            Process process = new ProcessBuilder("go", "tool", "pprof", "-symbolize=none", "-raw", file.toString())
                    .redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, process.exitValue(), "go tool pprof refused " + file + ":\n" + out);
            long samples = 0;
            Set<String> functions = new TreeSet<>();
            String section = "";
            for (String line : out.split("\n")) {
                if (line.startsWith("Samples:") || line.startsWith("Locations") || line.startsWith("Mappings")) {
                    section = line;
                    continue;
                }
                if (section.startsWith("Samples:")) {
                    Matcher sample = SAMPLE.matcher(line);
                    if (sample.find()) {
                        samples += Long.parseLong(sample.group(1));
                    }
                } else if (section.startsWith("Locations")) {
                    // "     1: 0x0 M=1 name file:line s=0" and inlined lines "             name file:line s=0";
                    // a function without a name prints as " file:line", which OTLP names do not list either
                    String body = line.replaceFirst("^\\s*\\d+: 0x[0-9a-f]+ M=\\d+ ", "").trim();
                    int end = body.lastIndexOf(" s=");
                    String nameAndFile = end < 0 ? "" : body.substring(0, end);
                    int lastSpace = nameAndFile.lastIndexOf(' ');
                    if (lastSpace > 0) {
                        functions.add(nameAndFile.substring(0, lastSpace));
                    }
                }
            }
            assertTrue(samples > 0, "no samples in:\n" + out);
            return new Raw(samples, functions);
        }
    }
}
