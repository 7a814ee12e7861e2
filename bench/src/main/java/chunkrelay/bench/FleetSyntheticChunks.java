package chunkrelay.bench;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;

/**
 * Small Sample Format V2 chunks of a generated fleet, for the in-process rows: each profiler a Python-like process
 * of one release with four threads, 80 functions in 400 stacks of depth 2 to 17, one sample per thread every 20 ms
 * for 9 s (1 800 samples). Seeded by profiler and start, so every run has the same fleet.
 */
final class FleetSyntheticChunks {
    static final String PLATFORM = "python";
    static final String ENVIRONMENT = "production";
    static final long SPAN_NANOS = 9_000_000_000L;
    private static final int THREADS = 4;
    private static final int FUNCTIONS = 80;
    private static final int STACKS = 400;
    private static final long STEP_NANOS = 20_000_000L;
    /** The stacks, the same for every chunk (a fleet runs one program): frame indices, root first. */
    private static final String STACKS_JSON = stacks();

    private FleetSyntheticChunks() {
    }

    static String profilerId(int profiler) {
        return String.format(Locale.ROOT, "%032x", 0xf1ee7000L + profiler);
    }

    static String chunkId(int profiler, long startNanos) {
        return String.format(Locale.ROOT, "%016x%016x", 0xc0ffee00L + profiler, startNanos);
    }

    /** The first half of the fleet runs the old release, the rest the new. */
    static String release(int profiler, int fleet) {
        return profiler < fleet / 2 ? "app@1.0.0" : "app@2.0.0";
    }

    /** One chunk whose samples start at {@code startNanos} and last {@link #SPAN_NANOS}. */
    static byte[] chunk(int profiler, String release, long startNanos) {
        Random random = new Random(profiler * 1_000_003L + startNanos);
        StringBuilder json = new StringBuilder(160_000);
        json.append("{\"version\":\"2\",\"chunk_id\":\"").append(chunkId(profiler, startNanos))
                .append("\",\"profiler_id\":\"").append(profilerId(profiler)).append("\",\"platform\":\"")
                .append(PLATFORM).append("\",\"release\":\"").append(release).append("\",\"environment\":\"")
                .append(ENVIRONMENT).append("\",\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.40.0\"},")
                .append("\"profile\":{\"frames\":[");
        for (int f = 0; f < FUNCTIONS; f++) {
            json.append(f == 0 ? "" : ",").append("{\"function\":\"handler_").append(f)
                    .append("\",\"module\":\"app.mod").append(f % 7).append("\",\"filename\":\"app/mod")
                    .append(f % 7).append(".py\",\"lineno\":").append(10 + f).append(",\"in_app\":true}");
        }
        json.append("],\"stacks\":").append(STACKS_JSON).append(",\"samples\":[");
        boolean first = true;
        for (long at = 0; at <= SPAN_NANOS; at += STEP_NANOS) {
            for (int thread = 1; thread <= THREADS; thread++) {
                long nanos = startNanos + at + thread * 1_000_000L;
                // a skewed choice of stack, as real programs spend most time in few places
                int stack = (int) (STACKS * Math.pow(random.nextDouble(), 3));
                json.append(first ? "" : ",").append("{\"stack_id\":").append(stack).append(",\"thread_id\":\"")
                        .append(thread).append("\",\"timestamp\":").append(nanos / 1_000_000_000L).append('.');
                // nine fraction digits by hand: a formatter per sample would cost more than the chunk's parse
                String fraction = Long.toString(nanos % 1_000_000_000L + 1_000_000_000L);
                json.append(fraction, 1, fraction.length()).append('}');
                first = false;
            }
        }
        json.append("],\"thread_metadata\":{");
        for (int thread = 1; thread <= THREADS; thread++) {
            json.append(thread == 1 ? "" : ",").append('"').append(thread).append("\":{\"name\":\"worker-")
                    .append(thread).append("\"}");
        }
        json.append("}}}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String stacks() {
        Random random = new Random(42);
        StringBuilder json = new StringBuilder("[");
        for (int s = 0; s < STACKS; s++) {
            json.append(s == 0 ? "[" : ",[");
            int depth = 2 + random.nextInt(16);
            for (int d = 0; d < depth; d++) {
                json.append(d == 0 ? "" : ",").append(random.nextInt(FUNCTIONS));
            }
            json.append(']');
        }
        return json.append(']').toString();
    }
}
