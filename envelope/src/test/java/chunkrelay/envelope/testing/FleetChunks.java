package chunkrelay.envelope.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Sample Format V2 chunks of a generated fleet of a {@link Shape}: each profiler a Python process of one release,
 * running one program (the same frames and stacks in every chunk). Seeded by profiler and start, so a fleet is the
 * same every run; the rollup tests' fleet and the benchmarks' differ only by their shape.
 */
public final class FleetChunks {
    public static final String PLATFORM = "python";
    private static final String ENVIRONMENT = "production";
    /**
     * The rollup tests' fleet: two threads, a dozen functions in twenty stacks (and idle samples with an empty
     * stack), one sample every half second.
     */
    public static final Shape ROLLUP_TESTS = new Shape(List.of("main", "worker"), 12, 3, 20, true, 1, 6,
            500_000_000L, Sampling.ONE_RANDOM_THREAD, 0xc0ffeeL);

    private final Shape shape;
    /** The stacks, frame indices root first, written once as every chunk has them. */
    private final String stacksJson;

    public FleetChunks(Shape shape) {
        this.shape = shape;
        this.stacksJson = stacks(shape);
    }

    /**
     * What the fleet runs and how it is sampled.
     *
     * @param threads     the threads' names, thread ids 1, 2, ... in this order
     * @param modules     how many modules the functions are spread over
     * @param idleStack   whether stack 0 is empty, for idle samples
     * @param minDepth    the fewest frames of a (not idle) stack
     * @param maxDepth    the most frames of a stack
     * @param chunkIdBase added to the profiler in the chunk id's first half, the start being the second (a
     *                    parameter so that each fleet keeps the ids it had)
     */
    public record Shape(List<String> threads, int functions, int modules, int stacks, boolean idleStack,
                        int minDepth, int maxDepth, long stepNanos, Sampling sampling, long chunkIdBase) {
    }

    /** Which threads are sampled at each step, and how. */
    public enum Sampling {
        /**
         * Every thread, a millisecond apart, mostly in a few stacks (as real programs spend most time in few
         * places); timestamps to the nanosecond.
         */
        EVERY_THREAD_SKEWED,
        /** One thread at random, up to a millisecond late, in any stack alike; timestamps to the microsecond. */
        ONE_RANDOM_THREAD
    }

    public static String profilerId(int profiler) {
        return String.format(Locale.ROOT, "%032x", 0xf1ee7000L + profiler);
    }

    /** The id of the chunk of a profiler starting at a time. */
    public String chunkId(int profiler, long startNanos) {
        return String.format(Locale.ROOT, "%016x%016x", shape.chunkIdBase() + profiler, startNanos);
    }

    /** The release a profiler runs: the first half of the fleet the old one, the rest the new. */
    public static String release(int profiler, int fleet) {
        return profiler < fleet / 2 ? "app@1.0.0" : "app@2.0.0";
    }

    /** One chunk of {@code steps} sampling steps, the first at {@code startNanos}. */
    public byte[] chunk(int profiler, String release, long startNanos, int steps) {
        Random random = new Random(profiler * 1_000_003L + startNanos);
        StringBuilder json = new StringBuilder(4096 + stacksJson.length() + steps * shape.threads().size() * 64);
        json.append("{\"version\":\"2\",\"chunk_id\":\"").append(chunkId(profiler, startNanos))
                .append("\",\"profiler_id\":\"").append(profilerId(profiler)).append("\",\"platform\":\"")
                .append(PLATFORM).append("\",\"release\":\"").append(release).append("\",\"environment\":\"")
                .append(ENVIRONMENT).append("\",\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.40.0\"},")
                .append("\"profile\":{\"frames\":[");
        for (int f = 0; f < shape.functions(); f++) {
            int module = f % shape.modules();
            json.append(f == 0 ? "" : ",").append("{\"function\":\"handler_").append(f)
                    .append("\",\"module\":\"app.mod").append(module).append("\",\"filename\":\"app/mod")
                    .append(module).append(".py\",\"lineno\":").append(10 + f).append(",\"in_app\":true}");
        }
        json.append("],\"stacks\":").append(stacksJson).append(",\"samples\":[");
        int threads = shape.threads().size();
        for (int i = 0; i < steps; i++) {
            long at = startNanos + i * shape.stepNanos();
            if (shape.sampling() == Sampling.EVERY_THREAD_SKEWED) {
                for (int thread = 1; thread <= threads; thread++) {
                    int stack = (int) (shape.stacks() * Math.pow(random.nextDouble(), 3));
                    sample(json, i == 0 && thread == 1, stack, thread, at + thread * 1_000_000L, 1);
                }
            } else {
                long nanos = at + random.nextInt(1000) * 1000L;
                int stack = random.nextInt(shape.stacks());
                sample(json, i == 0, stack, 1 + random.nextInt(threads), nanos, 1000);
            }
        }
        json.append("],\"thread_metadata\":{");
        for (int thread = 1; thread <= threads; thread++) {
            json.append(thread == 1 ? "" : ",").append('"').append(thread).append("\":{\"name\":\"")
                    .append(shape.threads().get(thread - 1)).append("\"}");
        }
        json.append("}}}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** One sample, its timestamp's fraction of a second in units of {@code unitNanos}. */
    static void sample(StringBuilder json, boolean first, int stack, int thread, long nanos, long unitNanos) {
        json.append(first ? "" : ",").append("{\"stack_id\":").append(stack).append(",\"thread_id\":\"")
                .append(thread).append("\",\"timestamp\":").append(nanos / 1_000_000_000L).append('.');
        // the fraction's digits by hand: a formatter per sample would cost more than the chunk's parse
        String fraction = Long.toString((nanos % 1_000_000_000L + 1_000_000_000L) / unitNanos);
        json.append(fraction, 1, fraction.length()).append('}');
    }

    private static String stacks(Shape shape) {
        Random random = new Random(42);
        StringBuilder json = new StringBuilder("[");
        for (int s = 0; s < shape.stacks(); s++) {
            json.append(s == 0 ? "[" : ",[");
            if (!(shape.idleStack() && s == 0)) {
                int depth = shape.minDepth() + random.nextInt(shape.maxDepth() - shape.minDepth() + 1);
                for (int d = 0; d < depth; d++) {
                    json.append(d == 0 ? "" : ",").append(random.nextInt(shape.functions()));
                }
            }
            json.append(']');
        }
        return json.append(']').toString();
    }

    /** An envelope of one chunk, as an SDK sends it. */
    public static byte[] envelope(byte[] chunk) {
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
