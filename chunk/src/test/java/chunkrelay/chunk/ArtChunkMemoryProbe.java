package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.ArtTraces;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Child-JVM entry point of {@link AndroidTraceMemoryTest}: builds a worst-case Android ART chunk near 50 MiB and
 * processes it, printing the outcome and the heap. Shapes: {@code records} (as many records as Relay's expanded-size
 * rule lets through, each entering a method id missing from the table on one of 65 536 threads: the most frames,
 * stack nodes, threads and filled samples per byte) and {@code methods} (a method table of tiny lines filling the
 * item: the most table entries per byte, refused for its expanded size after the parse). Exits 0 when the outcome
 * is the expected one.
 */
public final class ArtChunkMemoryProbe {
    private ArtChunkMemoryProbe() {
    }

    public static void main(String[] args) {
        String shape = args[0];
        long limit = ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES;
        byte[] trace = switch (shape) {
            case "records" -> records((int) (limit / AndroidTraceChunk.MIN_EVENT_JSON_BYTES) - 1000);
            case "methods" -> methods((int) (limit * 3 / 4) - 4096);
            default -> throw new IllegalArgumentException(shape);
        };
        byte[] payload = ArtTraces.wrappedChunk(Base64.getEncoder().withoutPadding().encodeToString(trace), "2");
        trace = null;
        long started = System.nanoTime();
        ChunkOutcome outcome = new ChunkProcessor(limit).process(payload, new ChunkItemHeader("android", null));
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.gc();
        long retained = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        System.out.printf("%s: payload %d bytes, -Xmx %d MiB, processed in %d ms, live after GC %d MiB, %s%n", shape,
                payload.length, Runtime.getRuntime().maxMemory() >> 20, millis, retained >> 20,
                outcome instanceof ChunkOutcome.Accepted a ? "accepted " + a.chunk().sampleCount() + " samples, "
                        + a.chunk().frames().size() + " frames, " + a.chunk().threadCount() + " threads"
                        : "rejected " + ((ChunkOutcome.Rejected) outcome).rejection());
        boolean expected = shape.equals("records")
                ? outcome instanceof ChunkOutcome.Accepted
                : outcome instanceof ChunkOutcome.Rejected r
                && r.rejection().reason() == ChunkRejectionReason.EXCEED_SIZE_LIMIT;
        System.exit(expected ? 0 : 1);
    }

    private static byte[] records(int count) {
        ArtTraces.Builder trace = ArtTraces.builder().elapsedMicros("60000000");
        for (int t = 0; t < 1 << 16; t += 4096) {
            trace.thread(t, "thread-" + t);
        }
        for (int r = 0; r < count; r++) {
            trace.enter(r & 0xFFFF, 1_000_000 + r, (long) r * 60_000_000L / count);
        }
        return trace.build();
    }

    private static byte[] methods(int bytes) {
        ByteArrayOutputStream text = new ByteArrayOutputStream(bytes + 64);
        text.writeBytes("*version\n3\nclock=dual\nelapsed-time-usec=1000\n*threads\n1\tmain\n*methods\n"
                .getBytes(StandardCharsets.US_ASCII));
        for (int m = 0; text.size() < bytes; m++) {
            text.writeBytes((Integer.toString(m << 2) + "\ta\tb\tc\t\n").getBytes(StandardCharsets.US_ASCII));
        }
        text.writeBytes("*end\n".getBytes(StandardCharsets.US_ASCII));
        byte[] binary = ArtTraces.builder().thread(1, "main").enter(1, 0, 0).build();
        int slow = new String(binary, StandardCharsets.ISO_8859_1).indexOf("SLOW");
        text.write(binary, slow, binary.length - slow);
        return text.toByteArray();
    }
}
