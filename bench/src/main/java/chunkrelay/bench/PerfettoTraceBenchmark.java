package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.fixtures.PerfettoTraces;
import chunkrelay.chunk.perfetto.PerfettoProfile;
import chunkrelay.chunk.perfetto.PerfettoTraceConverter;
import chunkrelay.chunk.perfetto.PerfettoTraceException;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Callstack;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Frame;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.InternedData;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Mapping;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The Android Perfetto path over a minute of stack sampling at 101 Hz on 8 threads (48 480 samples, 3 000
 * callstacks 40 frames deep over 4 000 frames, interned as a sequence goes): the trace's conversion and the whole
 * compound chunk through {@link ChunkProcessor}, each against a bare pass that reads every byte of the same trace
 * once and builds nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PerfettoTraceBenchmark {
    private byte[] trace;
    private byte[] chunk;
    private ChunkItemHeader header;
    private ChunkProcessor processor;

    @Setup
    public void setUp() {
        trace = minuteOfSampling();
        byte[] meta = PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE).getBytes(StandardCharsets.UTF_8);
        chunk = PerfettoTraces.payload(meta, trace);
        header = new ChunkItemHeader("android", PerfettoTraces.CONTENT_TYPE, (long) meta.length);
        processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
    }

    static int traceBytes() {
        return minuteOfSampling().length;
    }

    static byte[] minuteOfSampling() {
        Random random = new Random(101);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(PerfettoTraces.builder().clockSnapshot(1_000_000_000L, 1_755_000_000_000_000_000L).build());
        int frames = 4_000;
        int stacks = 3_000;
        InternedData.Builder first = InternedData.newBuilder()
                .addMappings(Mapping.newBuilder().setIid(1).setStart(0x70000000L).addPathStringIds(1))
                .addMappingPaths(PerfettoTraces.string(1, "system/framework/arm64/boot-framework.oat"));
        for (int f = 1; f <= frames; f++) {
            first.addFunctionNames(PerfettoTraces.string(f, "com.example.pkg" + f % 31 + ".Class" + f % 257
                    + ".method" + f));
            first.addFrames(Frame.newBuilder().setIid(f).setFunctionNameId(f).setMappingId(1).setRelPc(f * 4L));
        }
        out.writeBytes(PerfettoTraces.builder().interned(1, true, first.build()).build());
        PerfettoTraces.Builder samples = PerfettoTraces.builder();
        int interned = 0;
        for (int i = 0; i < 48_480; i++) {
            int callstack = 1 + random.nextInt(stacks);
            if (callstack > interned) {
                InternedData.Builder more = InternedData.newBuilder();
                for (int s = interned + 1; s <= callstack; s++) {
                    Callstack.Builder stack = Callstack.newBuilder().setIid(s);
                    for (int d = 0; d < 40; d++) {
                        stack.addFrameIds(1 + random.nextInt(frames));
                    }
                    more.addCallstacks(stack);
                }
                samples.interned(1, false, more.build());
                interned = callstack;
            }
            samples.sample(1_000_000_000L + i * 1_237_600L, 1, 4242, 4242 + i % 8, callstack);
        }
        out.writeBytes(samples.build());
        return out.toByteArray();
    }

    /** Floor: every byte of the trace read once, nothing built. */
    @Benchmark
    public long barePass() {
        long sum = 0;
        for (byte b : trace) {
            sum += b;
        }
        return sum;
    }

    @Benchmark
    public PerfettoProfile parse() throws PerfettoTraceException {
        return PerfettoTraceConverter.convert(trace, 0, trace.length);
    }

    @Benchmark
    public Object wholeChunk() {
        return processor.process(chunk, header);
    }
}
