package chunkrelay.bench;

import java.nio.charset.StandardCharsets;

/**
 * A deterministic Sample Format V2 chunk of exactly the requested size, written straight into one byte array:
 * a Python-like profile with 16 threads, 3 000 frames and 6 000 stacks of depth 8 to 47, and as many samples
 * (spread evenly over 60 s, microsecond timestamps) as fill the rest. Same size, same bytes, every run.
 */
final class SyntheticChunk {
    static final int THREADS = 16;
    static final String CHUNK_ID = "5b1d2a6c9e0f4c7d8a3b2e1f0c9d8e7a";
    private static final int FRAMES = 3000;
    private static final int STACKS = 6000;
    private static final long START_MICROS = 1_763_776_800_000_000L;
    private static final long SPAN_MICROS = 60_000_000L;
    private static final String TAIL = "]}}";
    /** Every sample is written with the same width (stack ids padded with spaces), so the space left is filled with whitespace exactly. */
    private static final String SAMPLE_FORMAT = "{\"stack_id\":%4d,\"thread_id\":\"%d\",\"timestamp\":%d.%06d}";

    private final byte[] buffer;
    private int length;
    private int samples;

    private SyntheticChunk(int size) {
        buffer = new byte[size];
    }

    /** The chunk's JSON, exactly {@code size} bytes. */
    static byte[] ofSize(int size) {
        SyntheticChunk chunk = new SyntheticChunk(size);
        chunk.write();
        return chunk.buffer;
    }

    /** The number of samples a chunk of {@code size} bytes holds. */
    static int samplesIn(int size) {
        SyntheticChunk chunk = new SyntheticChunk(size);
        chunk.write();
        return chunk.samples;
    }

    private void write() {
        append("{\"version\":\"2\",\"chunk_id\":\"" + CHUNK_ID + "\","
                + "\"profiler_id\":\"0e4f6a8b2c1d4e3f9a7b5c6d8e0f1a2b\",\"platform\":\"python\","
                + "\"release\":\"synthetic@1.0.0\",\"environment\":\"benchmark\","
                + "\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.40.0\"},\"profile\":{\"frames\":[");
        for (int f = 0; f < FRAMES; f++) {
            append((f == 0 ? "" : ",") + "{\"function\":\"handler_" + f + "\",\"module\":\"app.pkg" + f % 50
                    + ".mod" + f % 311 + "\",\"filename\":\"app/pkg" + f % 50 + "/mod" + f % 311
                    + ".py\",\"abs_path\":\"/srv/app/pkg" + f % 50 + "/mod" + f % 311 + ".py\",\"lineno\":"
                    + (1 + f * 37 % 2000) + ",\"in_app\":" + (f % 4 != 0) + "}");
        }
        append("],\"stacks\":[");
        for (int s = 0; s < STACKS; s++) {
            StringBuilder stack = new StringBuilder(s == 0 ? "[" : ",[");
            int depth = 8 + s % 40;
            for (int d = 0; d < depth; d++) {
                stack.append(d == 0 ? "" : ",").append((s * 131 + d * 977) % FRAMES);
            }
            append(stack.append(']').toString());
        }
        append("],\"thread_metadata\":{");
        for (int t = 0; t < THREADS; t++) {
            append((t == 0 ? "" : ",") + "\"" + threadId(t) + "\":{\"name\":\"worker-" + t + "\"}");
        }
        append("},\"samples\":[");
        int width = String.format(SAMPLE_FORMAT, 0, threadId(0), START_MICROS / 1_000_000, 0).length() + 1;
        samples = (buffer.length - length - TAIL.length()) / width;
        // rounds of one sample per thread spread evenly over 60 s (Relay refuses chunks over 66 s)
        long rounds = (samples + THREADS - 1) / THREADS;
        for (int i = 0; i < samples; i++) {
            long micros = START_MICROS + SPAN_MICROS * (i / THREADS) / rounds + (i % THREADS) * 10L;
            int stack = (int) ((i * 2_654_435_761L) % STACKS);
            append((i == 0 ? "" : ",") + String.format(SAMPLE_FORMAT, stack, threadId(i % THREADS),
                    micros / 1_000_000, micros % 1_000_000));
        }
        while (length < buffer.length - TAIL.length()) {
            buffer[length++] = ' ';
        }
        append(TAIL);
    }

    private static long threadId(int thread) {
        return 139_800_000L + thread;
    }

    private void append(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, buffer, length, bytes.length);
        length += bytes.length;
    }
}
