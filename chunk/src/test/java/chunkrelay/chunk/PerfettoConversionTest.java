package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.PerfettoTraces;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Frame;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.InternedData;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Mapping;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static chunkrelay.chunk.fixtures.PerfettoTraces.callstack;
import static chunkrelay.chunk.fixtures.PerfettoTraces.frame;
import static chunkrelay.chunk.fixtures.PerfettoTraces.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample and frame rules of Relay's Perfetto conversion, pinned with the traces and expected output of Relay's
 * own tests ({@code relay-profiling/src/perfetto/convert/mod.rs}, inline snapshots).
 */
class PerfettoConversionTest {
    private static final long BOOT = 1_000_000_000L;
    private static final long REAL = 1_700_000_001_000_000_000L;

    @Test
    void minimalTraceGivesRelaysSamplesLeafFirstStackNativeFramesAndMainThread() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, InternedData.newBuilder()
                        .addFunctionNames(string(1, "main")).addFunctionNames(string(2, "foo"))
                        .addFrames(frame(1, 1).toBuilder().setRelPc(0x1000))
                        .addFrames(frame(2, 2).toBuilder().setRelPc(0x2000))
                        .addCallstacks(callstack(1, 1, 2)).build())
                .sample(1_000_000_000L, 1, 42, 42, 1)
                .sample(1_010_000_000L, 1, 42, 42, 1)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);

        assertEquals(2, chunk.sampleCount());
        assertEquals(1_700_000_001_000_000_000L, chunk.sampleTimestampNanos(0));
        assertEquals(1_700_000_001_010_000_000L, chunk.sampleTimestampNanos(1));
        assertEquals("42", chunk.threadId(chunk.sampleThreadIndex(0)));
        assertEquals(List.of(new chunkrelay.chunk.Frame("main", null, null, null, null, null, null, 0x1000L, "native"),
                new chunkrelay.chunk.Frame("foo", null, null, null, null, null, null, 0x2000L, "native")), chunk.frames());
        assertEquals(1, chunk.stackCount());
        assertEquals(List.of(1, 0), stack(chunk, 0));
        assertEquals("main", chunk.threadMetadata().get("42").name());
    }

    @Test
    void offsetComesFromThePrimaryTraceClockWhenItIsNotBoottime() {
        byte[] trace = PerfettoTraces.builder()
                .clockSnapshot(3, PerfettoTraces.Builder.clock(3, 500_000_000L),
                        PerfettoTraces.Builder.clock(6, BOOT), PerfettoTraces.Builder.clock(1, REAL))
                .interned(1, true, oneFrame("func"))
                .sample(600_000_000L, 1, null, 1, 1)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(1_700_000_001_100_000_000L, chunk.sampleTimestampNanos(0));
        assertTrue(chunk.threadMetadata().isEmpty(), "no pid, no main thread: " + chunk.threadMetadata());
    }

    @Test
    void nativeFrameAddressIsRelPcPlusMappingStartAndNoBuildIdMeansNoImage() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, InternedData.newBuilder()
                        .addFunctionNames(string(1, "my_func"))
                        .addFrames(Frame.newBuilder().setIid(1).setFunctionNameId(1).setMappingId(1).setRelPc(0x100))
                        .addCallstacks(callstack(1, 1))
                        .addMappings(Mapping.newBuilder().setIid(1).setStart(0x7000).setEnd(0x8000)
                                .addPathStringIds(10))
                        .addMappingPaths(string(10, "libfoo.so")).build())
                .sample(1_000_000_000L, 1, null, 1, 1)
                .sample(1_010_000_000L, 1, null, 1, 1)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(List.of(new chunkrelay.chunk.Frame("my_func", null, null, null, null, null, null, 0x7100L,
                "native")), chunk.frames());
        assertEquals(chunkMetadataImages(), chunk.debugImages());
    }

    @Test
    void eachInternedFieldHasItsOwnIdSpace() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, InternedData.newBuilder()
                        .addFunctionNames(string(1, "my_func")).addMappingPaths(string(1, "base.odex"))
                        .addFrames(Frame.newBuilder().setIid(1).setFunctionNameId(1).setMappingId(1).setRelPc(0x100))
                        .addCallstacks(callstack(1, 1))
                        .addMappings(Mapping.newBuilder().setIid(1).setStart(0x7000).addPathStringIds(1)).build())
                .sample(1_000_000_000L, 1, null, 1, 1)
                .build();
        chunkrelay.chunk.Frame frame = PerfettoChunks.accepted(trace).frames().get(0);
        // a Java mapping: no address, and a name without a dot stays the function
        assertEquals(new chunkrelay.chunk.Frame("my_func", null, null, null, null, null, null, null, "java"), frame);
    }

    @Test
    void incrementalStateClearedResolvesEachSampleAgainstTheTablesOfItsTime() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, oneFrame("old_func"))
                .sample(1_000_000_000L, 1, null, 1, 1)
                .interned(1, true, oneFrame("new_func"))
                .sample(1_010_000_000L, 1, null, 1, 1)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(2, chunk.sampleCount());
        assertEquals(List.of("old_func", "new_func"), functions(chunk));
        assertEquals("old_func", chunk.frames().get(chunk.stackFrame(chunk.sampleStackId(0), 0)).function());
        assertEquals("new_func", chunk.frames().get(chunk.stackFrame(chunk.sampleStackId(1), 0)).function());
    }

    @Test
    void aResetBeforeAnySampleLeavesOnlyTheNewTables() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, oneFrame("old_func"))
                .interned(1, true, oneFrame("new_func"))
                .sample(1_000_000_000L, 1, null, 1, 1)
                .sample(1_010_000_000L, 1, null, 1, 1)
                .build();
        assertEquals(List.of("new_func"), functions(PerfettoChunks.accepted(trace)));
    }

    @Test
    void sequencesDoNotShareInternedTables() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, oneFrame("on_one"))
                .interned(2, true, oneFrame("on_two"))
                .sample(1_000_000_000L, 2, null, 5, 1)
                .sample(1_010_000_000L, 3, null, 5, 1)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        // sequence 3 interned nothing: its sample's callstack does not resolve and is no sample
        assertEquals(1, chunk.sampleCount());
        assertEquals(List.of("on_two"), functions(chunk));
    }

    @Test
    void aFrameSharedByTwoCallstacksIsOneFrameAndOneStack() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, InternedData.newBuilder()
                        .addFunctionNames(string(1, "shared"))
                        .addFrames(frame(1, 1).toBuilder().setRelPc(0x100))
                        .addCallstacks(callstack(1, 1)).addCallstacks(callstack(2, 1)).build())
                .sample(1_000_000_000L, 1, null, 1, 1)
                .sample(1_010_000_000L, 1, null, 1, 2)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(1, chunk.frames().size());
        assertEquals(1, chunk.stackCount());
    }

    @Test
    void framesTheTablesDoNotHoldAreLeftOutOfTheStack() {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, InternedData.newBuilder().addFunctionNames(string(1, "known"))
                        .addFrames(frame(1, 1)).addCallstacks(callstack(1, 1, 99)).build())
                .sample(1_000_000_000L, 1, null, 1, 1)
                .build();
        ProfileChunk chunk = PerfettoChunks.accepted(trace);
        assertEquals(1, chunk.stackDepth(0));
        assertNull(chunk.frames().get(0).instructionAddr(), "no rel_pc, no address");
    }

    @Test
    void javaFramesAreSplitAtTheLastDotIntoClassAndMethodForEveryJvmMapping() {
        List<String> paths = List.of("system/framework/arm64/boot-framework.oat", "data/app/x/oat/arm64/base.odex",
                "base.vdex", "system/framework/framework.jar", "classes.dex", "[anon_shmem:dalvik-jit-code-cache]");
        for (String path : paths) {
            byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                    .interned(1, true, InternedData.newBuilder()
                            .addFunctionNames(string(1, "com.example.MyClass.myMethod"))
                            .addFrames(Frame.newBuilder().setIid(1).setFunctionNameId(1).setMappingId(1).setRelPc(4))
                            .addCallstacks(callstack(1, 1))
                            .addMappings(Mapping.newBuilder().setIid(1).setStart(0x7000).addPathStringIds(1))
                            .addMappingPaths(string(1, path)).build())
                    .sample(1_000_000_000L, 1, null, 1, 1)
                    .build();
            assertEquals(new chunkrelay.chunk.Frame("myMethod", "com.example.MyClass", null, null, null, null, null,
                    null, "java"), PerfettoChunks.accepted(trace).frames().get(0), path);
        }
        for (String path : List.of("libc.so", "apex/com.android.art/lib64/libart.so", "app_process64")) {
            assertEquals("native", frameOn(path).platform(), path);
        }
    }

    @Test
    void buildIdsBecomeLittleEndianDebugIdsOfSymbolicImages() {
        assertEquals("7f4a3eb0-885e-8d4c-a04b-05fa32cc4cbd", chunkrelay.chunk.perfetto.PerfettoTestAccess.debugId(
                new byte[] {(byte) 0xb0, 0x3e, 0x4a, 0x7f, 0x5e, (byte) 0x88, 0x4c, (byte) 0x8d, (byte) 0xa0, 0x4b,
                    0x05, (byte) 0xfa, 0x32, (byte) 0xcc, 0x4c, (byte) 0xbd, 0x69, (byte) 0xfa, (byte) 0xff, 0x51}));
        assertEquals("ddccbbaa-0000-0000-0000-000000000000", chunkrelay.chunk.perfetto.PerfettoTestAccess.debugId(
                new byte[] {(byte) 0xaa, (byte) 0xbb, (byte) 0xcc, (byte) 0xdd}));
    }

    private static chunkrelay.chunk.Frame frameOn(String path) {
        byte[] trace = PerfettoTraces.builder().clockSnapshot(BOOT, REAL)
                .interned(1, true, InternedData.newBuilder()
                        .addFunctionNames(string(1, "f"))
                        .addFrames(Frame.newBuilder().setIid(1).setFunctionNameId(1).setMappingId(1).setRelPc(4))
                        .addCallstacks(callstack(1, 1))
                        .addMappings(Mapping.newBuilder().setIid(1).setStart(0x7000).addPathStringIds(1))
                        .addMappingPaths(string(1, path)).build())
                .sample(1_000_000_000L, 1, null, 1, 1)
                .build();
        return PerfettoChunks.accepted(trace).frames().get(0);
    }

    static InternedData oneFrame(String name) {
        return InternedData.newBuilder().addFunctionNames(string(1, name)).addFrames(frame(1, 1))
                .addCallstacks(callstack(1, 1)).build();
    }

    private static List<DebugImage> chunkMetadataImages() {
        return List.of();
    }

    static List<String> functions(ProfileChunk chunk) {
        List<String> names = new ArrayList<>();
        for (chunkrelay.chunk.Frame frame : chunk.frames()) {
            names.add(frame.function());
        }
        return names;
    }

    static List<Integer> stack(ProfileChunk chunk, int stackId) {
        List<Integer> frames = new ArrayList<>();
        for (int d = 0; d < chunk.stackDepth(stackId); d++) {
            frames.add(chunk.stackFrame(stackId, d));
        }
        return frames;
    }
}
