package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.PerfettoTraces;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Callstack;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Frame;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.InternedData;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.Mapping;

import com.google.protobuf.CodedOutputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Child-JVM entry point of {@link PerfettoTraceMemoryTest}: builds a worst-case Perfetto chunk near 50 MiB and
 * processes it, printing the outcome and the heap. Shapes: {@code samples} (99 998 samples on 64 threads over 16 000
 * distinct callstacks 180 frames deep from 20 000 Java frames, as much as the tables' and the result's budgets let
 * through, padded to the limit with a field the reader skips: accepted) and {@code interned} (packets of interned
 * names filling the item: refused for the tables' budget). Exits 0 when the outcome is the expected one.
 */
public final class PerfettoChunkMemoryProbe {
    private PerfettoChunkMemoryProbe() {
    }

    public static void main(String[] args) throws IOException {
        String shape = args[0];
        long limit = ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES;
        byte[] meta = PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE).getBytes(StandardCharsets.UTF_8);
        int traceBytes = (int) limit - meta.length;
        byte[] trace = switch (shape) {
            case "samples" -> samples(traceBytes);
            case "interned" -> interned(traceBytes);
            default -> throw new IllegalArgumentException(shape);
        };
        byte[] payload = PerfettoTraces.payload(meta, trace);
        trace = null;
        long started = System.nanoTime();
        ChunkOutcome outcome = new ChunkProcessor(limit).process(payload,
                new ChunkItemHeader("android", PerfettoTraces.CONTENT_TYPE, (long) meta.length));
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.gc();
        long retained = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        System.out.printf("%s: payload %d bytes, -Xmx %d MiB, processed in %d ms, live after GC %d MiB, %s%n", shape,
                payload.length, Runtime.getRuntime().maxMemory() >> 20, millis, retained >> 20,
                outcome instanceof ChunkOutcome.Accepted a ? "accepted " + a.chunk().sampleCount() + " samples, "
                        + a.chunk().frames().size() + " frames, " + a.chunk().stackCount() + " stacks"
                        : "rejected " + outcome);
        boolean expected = shape.equals("samples")
                ? outcome instanceof ChunkOutcome.Accepted a && a.chunk().sampleCount() == 99_998
                : outcome instanceof ChunkOutcome.Rejected r
                && r.rejection().reason() == ChunkRejectionReason.EXCEED_SIZE_LIMIT;
        System.exit(expected ? 0 : 1);
    }

    private static byte[] samples(int bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes);
        out.writeBytes(PerfettoTraces.builder().clockSnapshot(1_000_000_000L, 1_755_000_000_000_000_000L).build());
        int frames = 20_000;
        InternedData.Builder names = InternedData.newBuilder()
                .addMappings(Mapping.newBuilder().setIid(1).setStart(0x70000000L).addPathStringIds(1))
                .addMappingPaths(PerfettoTraces.string(1, "system/framework/arm64/boot-framework.oat"));
        for (int f = 1; f <= frames; f++) {
            names.addFunctionNames(PerfettoTraces.string(f, "com.example.pkg" + f % 97 + ".Class" + f % 1013
                    + ".method" + f));
            names.addFrames(Frame.newBuilder().setIid(f).setFunctionNameId(f).setMappingId(1).setRelPc(f * 4L));
        }
        out.writeBytes(PerfettoTraces.builder().interned(1, true, names.build()).build());
        Random random = new Random(28);
        int stacks = 16_000;
        InternedData.Builder batch = InternedData.newBuilder();
        for (int s = 1; s <= stacks; s++) {
            Callstack.Builder stack = Callstack.newBuilder().setIid(s);
            for (int d = 0; d < 180; d++) {
                stack.addFrameIds(1 + random.nextInt(frames));
            }
            batch.addCallstacks(stack);
            if (s % 2_000 == 0) {
                out.writeBytes(PerfettoTraces.builder().interned(1, false, batch.build()).build());
                batch = InternedData.newBuilder();
            }
        }
        PerfettoTraces.Builder samples = PerfettoTraces.builder();
        for (int i = 0; i < 99_998; i++) {
            samples.sample(1_000_000_000L + i * 10_000L, 1, 4242, 4242 + i % 64, 1 + i % stacks);
        }
        out.writeBytes(samples.build());
        // the rest of the item: a top-level field that is no packet, skipped unread
        CodedOutputStream padding = CodedOutputStream.newInstance(out);
        int left = bytes - out.size() - 8;
        padding.writeByteArray(2, new byte[left]);
        padding.flush();
        return out.toByteArray();
    }

    private static byte[] interned(int bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes);
        String name = "n".repeat(1_000);
        long iid = 0;
        while (out.size() < bytes - 4 * 1024 * 1024) {
            InternedData.Builder names = InternedData.newBuilder();
            for (int i = 0; i < 3_500; i++) {
                names.addFunctionNames(PerfettoTraces.string(iid++, name));
            }
            out.writeBytes(PerfettoTraces.builder().interned(1, false, names.build()).build());
        }
        return out.toByteArray();
    }
}
