package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.SampledTime;
import chunkrelay.chunk.SentryUuid;
import chunkrelay.chunk.fixtures.ArtTraces;
import chunkrelay.chunk.fixtures.PerfettoTraces;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every recorded chunk's OTLP form read as Pyroscope's OTLP ingest reads it ({@link PyroscopeOtlpIngest}, its rules
 * from Pyroscope's code with file and line): accepted whole, wall-clock sources filed as {@code wall} and CPU-time ones
 * as {@code process_cpu} within the threads' elapsed time, no per-session id among the series labels, every frame
 * named, a plain {@code service.name}.
 */
class PyroscopeIngestConformanceTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    /**
     * The recorded SDK chunks, Sentry's fixtures, a real ART trace, Perfetto's own stack-sampling traces and the
     * project's synthetic one.
     */
    static List<FixtureChunks.Normalised> chunks() {
        List<FixtureChunks.Normalised> chunks = realChunks();
        chunks.add(FixtureChunks.perfettoChunk("perfetto/android-stack-sampling (synthetic)",
                PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC)));
        return chunks;
    }

    /**
     * The chunks real profilers wrote. The synthetic Perfetto trace samples one thread twice 1 ms apart in some
     * 9.9 ms ticks (as 3 CPUs at once would), more often than one thread can run: it says nothing of CPU time.
     */
    static List<FixtureChunks.Normalised> realChunks() {
        List<FixtureChunks.Normalised> chunks = new ArrayList<>(FixtureChunks.all());
        chunks.add(FixtureChunks.androidTraceChunk("android/art-trace-regular", ArtTraces.realSamplingTrace()));
        chunks.add(FixtureChunks.perfettoChunk("perfetto/upstream", PerfettoTraces.upstreamComposite()));
        return chunks;
    }

    private static ExportProfilesServiceRequest translate(ProfileChunk chunk) {
        return TRANSLATOR.translate(chunk, TranslationContext.forProject(1));
    }

    /** Pyroscope receiving the chunk as the relay forwards it: when the longest chunk (66 s) would have ended. */
    private static List<PyroscopeOtlpIngest.Series> ingest(ProfileChunk chunk) {
        return PyroscopeOtlpIngest.ingest(translate(chunk), chunk.firstSampleNanos() + 66_000_000_000L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void isAcceptedWithEverySampleAndFiledByWhatItsProfilerSampled(FixtureChunks.Normalised fixture) {
        ProfileChunk chunk = fixture.chunk();
        Profile profile = new OtlpView(translate(chunk)).profile;
        List<PyroscopeOtlpIngest.Series> series = ingest(chunk);

        long total = series.stream().flatMap(s -> s.samples().stream()).mapToLong(PyroscopeOtlpIngest.PprofSample::value)
                .sum();
        if (chunk.sampledTime() == SampledTime.WALL_CLOCK) {
            series.forEach(s -> assertEquals("wall", s.name(), "a wall-clock source is not CPU time"));
            series.forEach(s -> assertEquals("samples:count", s.sampleType()));
            assertEquals(chunk.sampleCount(), total, "every sample counted once");
        } else {
            series.forEach(s -> assertEquals("process_cpu", s.name()));
            series.forEach(s -> assertEquals("cpu:nanoseconds", s.sampleType()));
            assertEquals(chunk.sampleCount() * profile.getPeriod(), total, "every sample's CPU time");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("realChunks")
    void countsNoIdleTickAsCpuAndNoThreadMoreCpuTimeThanElapsed(FixtureChunks.Normalised fixture) {
        ProfileChunk chunk = fixture.chunk();
        long period = new OtlpView(translate(chunk)).profile.getPeriod();
        Map<String, Long> cpuByThread = new HashMap<>();
        for (PyroscopeOtlpIngest.Series series : ingest(chunk)) {
            if (!series.name().equals("process_cpu")) {
                continue;
            }
            for (PyroscopeOtlpIngest.PprofSample sample : series.samples()) {
                assertNotEquals(List.of(ProfileTypes.IDLE_FRAME), sample.functions(), "an idle tick as CPU time");
                cpuByThread.merge(series.labels().get("thread_id"), sample.value(), Long::sum);
            }
        }
        for (int t = 0; t < chunk.threadCount(); t++) {
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (int s = 0; s < chunk.sampleCount(); s++) {
                if (chunk.sampleThreadIndex(s) == t) {
                    first = Math.min(first, chunk.sampleTimestampNanos(s));
                    last = Math.max(last, chunk.sampleTimestampNanos(s));
                }
            }
            long cpu = cpuByThread.getOrDefault(chunk.threadId(t), 0L);
            assertTrue(cpu <= last - first + period, "thread " + chunk.threadId(t) + ": " + cpu
                    + " ns of CPU time in " + (last - first + period) + " ns");
        }
        assertEquals(chunk.sampledTime() == SampledTime.CPU, !cpuByThread.isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void namesEveryFrameAndItsServicePlainly(FixtureChunks.Normalised fixture) {
        ProfileChunk chunk = fixture.chunk();
        KeyValue serviceName = translate(chunk).getResourceProfiles(0).getResource().getAttributesList().stream()
                .filter(a -> a.getKey().equals("service.name")).findFirst().orElseThrow();
        assertTrue(serviceName.getValue().hasStringValue() && !serviceName.getValue().getStringValue().isEmpty());
        for (PyroscopeOtlpIngest.Series series : ingest(chunk)) {
            assertEquals(serviceName.getValue().getStringValue(), series.labels().get("service_name"));
            for (PyroscopeOtlpIngest.PprofSample sample : series.samples()) {
                assertFalse(sample.functions().isEmpty(), "a sample without a frame");
                // a frame of no function is an unsymbolicated address (Cocoa), which Pyroscope shows as one
                assertFalse(sample.functions().contains(""), "a blank function name in " + sample.functions());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chunks")
    void keepsPerSessionIdsOutOfTheSeriesLabels(FixtureChunks.Normalised fixture) {
        ProfileChunk chunk = fixture.chunk();
        Set<String> labelValues = new HashSet<>();
        Set<Map<String, String>> labelSets = new HashSet<>();
        for (PyroscopeOtlpIngest.Series series : ingest(chunk)) {
            // docs/how-it-works.md says 14: 4 of Pyroscope's, 7 of the resource, 3 of the thread
            assertTrue(series.labels().size() <= 14, series.labels().toString());
            labelValues.addAll(series.labels().values());
            labelSets.add(series.labels());
        }
        assertFalse(labelValues.contains(chunk.profilerId().toHex()), "the profiler id is a series label");
        assertFalse(labelValues.contains(chunk.chunkId().toHex()), "the chunk id is a series label");
        assertEquals(chunk.threadCount(), labelSets.size(), "one series per thread");
    }

    @Test
    void aRestartedProcessWritesToTheSameSeries() {
        ProfileChunk before = FixtureChunks.sdkChunk("node-11.1.0-long/001").chunk();
        ProfileChunk after = FixtureChunks.withProfilerId("node-11.1.0-long/001",
                SentryUuid.parseOrNull("0123456789abcdef0123456789abcdef")).chunk();
        assertNotEquals(before.profilerId(), after.profilerId());

        Set<Map<String, String>> labelsBefore = new HashSet<>();
        ingest(before).forEach(s -> labelsBefore.add(s.labels()));
        Set<Map<String, String>> labelsAfter = new HashSet<>();
        ingest(after).forEach(s -> labelsAfter.add(s.labels()));
        assertEquals(labelsBefore, labelsAfter);
    }

    @Test
    void refusesWhatItsCodeRefuses() {
        ProfileChunk chunk = FixtureChunks.sdkChunk("node-11.1.0/003").chunk();
        ExportProfilesServiceRequest request = translate(chunk);
        // an hour after the chunk, Pyroscope's default window has closed on it
        assertThrows(PyroscopeOtlpIngest.Refused.class,
                () -> PyroscopeOtlpIngest.ingest(request, chunk.lastSampleNanos() + 3_600_000_000_000L));
        // a zero period leaves the profile without a name
        ExportProfilesServiceRequest.Builder unnamed = request.toBuilder();
        unnamed.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0).setPeriod(0);
        assertThrows(PyroscopeOtlpIngest.Refused.class,
                () -> PyroscopeOtlpIngest.ingest(unnamed.build(), chunk.lastSampleNanos()));
        // two values in a sample
        ExportProfilesServiceRequest.Builder twoValues = request.toBuilder();
        twoValues.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0)
                .getSamplesBuilder(0).addValues(1).addValues(1);
        assertThrows(PyroscopeOtlpIngest.Refused.class,
                () -> PyroscopeOtlpIngest.ingest(twoValues.build(), chunk.lastSampleNanos()));
    }
}
