package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.PerfettoTraces;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The text-proto traces under fixtures/perfetto, built into binary traces and converted. */
class PerfettoFixtureTest {

    @Test
    void syntheticAndroidTraceHasEveryResolvableSampleInTimeOrderFromItsClockSnapshot() {
        byte[] trace = PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC);
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(42, PerfettoTraces.resolvableSamples(trace));
        assertEquals(42, chunk.sampleCount());
        // REALTIME 1755000000123456789 - BOOTTIME 273574904041306, plus the first sample's boot time
        assertEquals(1_755_000_000_123_456_789L + 80_000_000L, chunk.firstSampleNanos());
        for (int s = 1; s < chunk.sampleCount(); s++) {
            assertTrue(chunk.sampleTimestampNanos(s - 1) <= chunk.sampleTimestampNanos(s), "sample " + s);
        }
    }

    @Test
    void syntheticTraceNamesMainByPidAndOtherThreadsFromTheProcessTree() {
        ProfileChunk chunk = PerfettoChunks.accepted(PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC));
        assertEquals("main", chunk.threadMetadata().get("12345").name());
        assertEquals("RenderThread", chunk.threadMetadata().get("12360").name());
        assertEquals("DefaultDispatch", chunk.threadMetadata().get("12371").name());
        assertEquals(3, chunk.threadCount());
    }

    @Test
    void syntheticTraceHasQualifiableJavaFramesAndNativeFramesInsideTheirImages() {
        ProfileChunk chunk = PerfettoChunks.accepted(PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC));
        Set<String> java = new HashSet<>();
        int native_ = 0;
        for (Frame frame : chunk.frames()) {
            if ("java".equals(frame.platform())) {
                java.add(frame.module() + "." + frame.function());
                assertNull(frame.instructionAddr(), frame.toString());
            } else {
                assertEquals("native", frame.platform());
                assertNotNull(frame.instructionAddr(), frame.toString());
                long address = frame.instructionAddr();
                assertTrue(chunk.debugImages().stream().anyMatch(image -> image.contains(address)),
                        frame + " lies in no image");
                native_++;
            }
        }
        assertTrue(java.containsAll(List.of("android.os.Looper.loop", "android.app.ActivityThread.main",
                "io.sentry.samples.android.ProfilingActivity.fibonacci")), java.toString());
        assertEquals(7, native_);
        assertEquals(Set.of("apex/com.android.runtime/lib64/bionic/libc.so", "system/lib64/libhwui.so",
                "system/lib64/libutils.so", "apex/com.android.art/lib64/libart.so"),
                Set.copyOf(chunk.debugImages().stream().map(DebugImage::codeFile).toList()));
        for (DebugImage image : chunk.debugImages()) {
            assertEquals("symbolic", image.type());
            assertTrue(DebugImageTypes.isDebugId(image.debugId()), image.debugId());
        }
    }

    @Test
    void upstreamPerfettoTracesConvertWithTheirJavaAndNativeFrames() {
        byte[] trace = PerfettoTraces.upstreamComposite();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(PerfettoTraces.resolvableSamples(trace), chunk.sampleCount());
        assertEquals(2, chunk.sampleCount());
        // the first sample's pid is 1000, its tid too
        assertEquals("main", chunk.threadMetadata().get("1000").name());
        assertNull(chunk.threadMetadata().get("26698"));
        Frame managed = chunk.frames().stream().filter(f -> "java".equals(f.platform())).findFirst().orElseThrow();
        assertEquals("com.example.managed", managed.module());
        assertEquals("frame", managed.function());
        // libart.so frames without rel_pc have no address; Prebuilt2.apk is no JVM mapping, so its frames are native
        assertTrue(chunk.frames().stream().anyMatch(f -> "ExecuteSwitchImplAsm".equals(f.function())
                && f.instructionAddr() == null));
        assertTrue(chunk.frames().stream().anyMatch(f -> "hwe.a".equals(f.function())
                && Long.valueOf(3128418304L + 3370425L).equals(f.instructionAddr())));
        // their build ids are empty: no image
        assertTrue(chunk.debugImages().isEmpty(), chunk.debugImages().toString());
    }
}
