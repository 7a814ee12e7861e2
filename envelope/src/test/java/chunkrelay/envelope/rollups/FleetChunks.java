package chunkrelay.envelope.rollups;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Random;

/**
 * Sample Format V2 chunks of a generated fleet: each profiler a Python process of one release with two threads,
 * a dozen functions in twenty stacks (and idle samples with an empty stack), one sample every half second for as long
 * as a chunk lasts. Seeded, so a test's fleet is the same every run.
 */
final class FleetChunks {
    static final String PLATFORM = "python";
    static final String ENVIRONMENT = "production";
    private static final int FUNCTIONS = 12;
    private static final int STACKS = 20;
    private static final long SAMPLE_STEP_NANOS = 500_000_000L;

    private FleetChunks() {
    }

    static String profilerId(int profiler) {
        return String.format(Locale.ROOT, "%032x", 0xf1ee7000L + profiler);
    }

    static String chunkId(int profiler, long startNanos) {
        return HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16).putLong(0xc0ffeeL + profiler)
                .putLong(startNanos).array());
    }

    /** The release a profiler runs: the first half of the fleet the old one, the rest the new. */
    static String release(int profiler, int fleet) {
        return profiler < fleet / 2 ? "app@1.0.0" : "app@2.0.0";
    }

    /** One chunk of {@code samples} samples from {@code startNanos}, every half second. */
    static byte[] chunk(int profiler, String release, long startNanos, int samples) {
        Random random = new Random(profiler * 1_000_003L + startNanos);
        StringBuilder json = new StringBuilder(8192);
        json.append("{\"version\":\"2\",\"chunk_id\":\"").append(chunkId(profiler, startNanos))
                .append("\",\"profiler_id\":\"").append(profilerId(profiler)).append("\",\"platform\":\"")
                .append(PLATFORM).append("\",\"release\":\"").append(release).append("\",\"environment\":\"")
                .append(ENVIRONMENT).append("\",\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.40.0\"},")
                .append("\"profile\":{\"frames\":[");
        for (int f = 0; f < FUNCTIONS; f++) {
            json.append(f == 0 ? "" : ",").append("{\"function\":\"handler_").append(f)
                    .append("\",\"module\":\"app.mod").append(f % 3).append("\",\"filename\":\"app/mod")
                    .append(f % 3).append(".py\",\"lineno\":").append(10 + f).append(",\"in_app\":true}");
        }
        json.append("],\"stacks\":[[]");
        Random stacks = new Random(42);
        for (int s = 1; s < STACKS; s++) {
            json.append(",[");
            int depth = 1 + stacks.nextInt(6);
            for (int d = 0; d < depth; d++) {
                json.append(d == 0 ? "" : ",").append(stacks.nextInt(FUNCTIONS));
            }
            json.append(']');
        }
        json.append("],\"samples\":[");
        for (int i = 0; i < samples; i++) {
            long nanos = startNanos + i * SAMPLE_STEP_NANOS + random.nextInt(1000) * 1000L;
            json.append(i == 0 ? "" : ",").append("{\"stack_id\":").append(random.nextInt(STACKS))
                    .append(",\"thread_id\":\"").append(1 + random.nextInt(2)).append("\",\"timestamp\":")
                    .append(nanos / 1_000_000_000L).append('.')
                    .append(String.format(Locale.ROOT, "%06d", nanos % 1_000_000_000L / 1000)).append('}');
        }
        json.append("],\"thread_metadata\":{\"1\":{\"name\":\"main\"},\"2\":{\"name\":\"worker\"}}}}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** An envelope of one chunk, as an SDK sends it. */
    static byte[] envelope(byte[] chunk) {
        String header = "{\"event_id\":\"9ec79c33ec9942ab8353589fcb2e04dc\",\"sdk\":{\"name\":\"sentry.python\","
                + "\"version\":\"2.40.0\"}}\n{\"type\":\"profile_chunk\",\"platform\":\"python\",\"length\":"
                + chunk.length + "}\n";
        byte[] head = header.getBytes(StandardCharsets.UTF_8);
        byte[] envelope = new byte[head.length + chunk.length + 1];
        System.arraycopy(head, 0, envelope, 0, head.length);
        System.arraycopy(chunk, 0, envelope, head.length, chunk.length);
        envelope[envelope.length - 1] = '\n';
        return envelope;
    }
}
