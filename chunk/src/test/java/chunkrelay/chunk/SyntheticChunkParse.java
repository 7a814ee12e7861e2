package chunkrelay.chunk;

import java.nio.charset.StandardCharsets;

/**
 * Child-JVM entry point of {@link ChunkMemoryTest}: builds a deterministic synthetic chunk of exactly
 * the given size directly in one byte array (no copies), processes it, and prints the outcome and the heap used.
 * Exits 0 only when the chunk is accepted with the expected number of samples.
 */
public final class SyntheticChunkParse {
    private static final int THREADS = 8;
    private static final int FRAMES = 2000;
    private static final int STACKS = 4000;
    private static final long START_MICROS = 1_710_805_688_000_000L;

    private final byte[] buffer;
    private int length;

    private SyntheticChunkParse(int capacity) {
        buffer = new byte[capacity];
    }

    /**
     * @param args the payload size in bytes, then the shape: {@code realistic} (frames, stacks and
     *             interleaved samples of 8 threads), {@code stack-indices} (one stack of millions of "0,")
     *             or {@code empty-frames} (millions of "{}," frames), the two cheapest inputs per value kept
     */
    public static void main(String[] args) {
        int targetBytes = Integer.parseInt(args[0]);
        String shape = args.length > 1 ? args[1] : "realistic";
        SyntheticChunkParse writer = new SyntheticChunkParse(targetBytes);
        int samples = switch (shape) {
            case "realistic" -> writer.writeChunk();
            case "stack-indices" -> writer.writeRepeated("\"frames\":[{}],\"stacks\":[[", "0", "]],");
            case "empty-frames" -> writer.writeRepeated("\"stacks\":[[0]],\"frames\":[", "{}", "],");
            default -> throw new IllegalArgumentException(shape);
        };
        byte[] payload = writer.buffer;

        long started = System.nanoTime();
        ChunkOutcome outcome = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES)
                .process(payload, new ChunkItemHeader("python", null));
        long millis = (System.nanoTime() - started) / 1_000_000;

        // what stays live: the payload (still referenced here) and the normalised chunk
        System.gc();
        long retained = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        System.out.printf(shape + ": payload %d bytes, %d samples, -Xmx %d MiB, processed in %d ms,"
                        + " live after GC (payload + chunk) %d MiB%n",
                payload.length, samples, Runtime.getRuntime().maxMemory() >> 20, millis, retained >> 20);
        if (outcome instanceof ChunkOutcome.Accepted accepted && accepted.chunk().sampleCount() == samples) {
            System.out.println("accepted " + accepted.chunk().sampleCount() + " samples on "
                    + accepted.chunk().threadCount() + " threads");
            System.exit(0);
        }
        System.out.println("unexpected outcome " + outcome);
        System.exit(1);
    }

    /** Writes the chunk; samples fill the space left, interleaved over threads, 60 s in total. */
    private int writeChunk() {
        write("{\"version\":\"2\",\"chunk_id\":\"0432a0a4c25f4697bf9f0a2fcbe6a814\","
                + "\"profiler_id\":\"4d229f1d3807421ba62a5f8bc295d836\",\"platform\":\"python\","
                + "\"release\":\"synthetic@1.0\",\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.0.0\"},"
                + "\"profile\":{\"frames\":[");
        for (int f = 0; f < FRAMES; f++) {
            write((f == 0 ? "" : ",") + "{\"function\":\"module.Class.method_" + f + "\",\"filename\":\"pkg/file_"
                    + f % 97 + ".py\",\"lineno\":" + (f * 7 % 1000) + ",\"in_app\":" + (f % 3 == 0) + "}");
        }
        write("],\"stacks\":[");
        for (int s = 0; s < STACKS; s++) {
            StringBuilder stack = new StringBuilder(s == 0 ? "[" : ",[");
            int depth = 5 + s % 20;
            for (int d = 0; d < depth; d++) {
                stack.append(d == 0 ? "" : ",").append((s * 31 + d * 17) % FRAMES);
            }
            write(stack.append(']').toString());
        }
        write("],\"thread_metadata\":{");
        for (int t = 0; t < THREADS; t++) {
            write((t == 0 ? "" : ",") + "\"" + (140_000 + t) + "\":{\"name\":\"worker-" + t + "\"}");
        }
        write("},\"samples\":[");
        String tail = "]}}";
        int sampleBytes = "{\"timestamp\":1710805688.000000,\"thread_id\":\"140000\",\"stack_id\":1234},".length();
        int samples = (buffer.length - length - tail.length()) / sampleBytes;
        for (int i = 0; i < samples; i++) {
            long micros = START_MICROS + 60_000_000L * i / samples;
            String fraction = Long.toString(1_000_000 + micros % 1_000_000).substring(1);
            String sample = "{\"timestamp\":" + micros / 1_000_000 + "." + fraction
                    + ",\"thread_id\":\"" + (140_000 + i % THREADS) + "\",\"stack_id\":" + (1000 + i % 3000) + "}";
            write(i == 0 ? sample : "," + sample);
        }
        // every sample has the same length, so JSON whitespace fills the array exactly
        while (length < buffer.length - tail.length()) {
            buffer[length++] = ' ';
        }
        write(tail);
        return samples;
    }

    /** A valid chunk of two samples whose bulk is {@code element} repeated inside {@code open}/{@code close}. */
    private int writeRepeated(String open, String element, String close) {
        write("{\"version\":\"2\",\"chunk_id\":\"0432a0a4c25f4697bf9f0a2fcbe6a814\","
                + "\"profiler_id\":\"4d229f1d3807421ba62a5f8bc295d836\",\"platform\":\"python\","
                + "\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.0.0\"},\"profile\":{" + open);
        String tail = close + "\"samples\":[{\"timestamp\":1.0,\"thread_id\":\"1\",\"stack_id\":0},"
                + "{\"timestamp\":2.0,\"thread_id\":\"1\",\"stack_id\":0}]}}";
        byte[] bytes = element.getBytes(StandardCharsets.US_ASCII);
        int end = buffer.length - tail.length();
        for (boolean first = true; length + bytes.length + 1 <= end; first = false) {
            if (!first) {
                buffer[length++] = ',';
            }
            System.arraycopy(bytes, 0, buffer, length, bytes.length);
            length += bytes.length;
        }
        while (length < end) {
            buffer[length++] = ' ';
        }
        write(tail);
        return 2;
    }

    private void write(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, buffer, length, bytes.length);
        length += bytes.length;
    }
}
