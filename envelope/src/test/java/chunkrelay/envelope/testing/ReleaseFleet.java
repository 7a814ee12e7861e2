package chunkrelay.envelope.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A generated fleet of two releases for the regressions view: 20 Python processes, half of each release web servers
 * (handlers) and half workers (tasks), all spending a share of their samples in one function,
 * {@link #REGRESSED} ({@code encode_json}, called from {@code main}): a fifth in the old release, a tenth more (22%)
 * in the new one; every other function's cost is the same in both. Load moves between the releases: in the old one
 * the web servers are busy (four threads sampled) and the workers nearly idle (one thread), in the new one the other
 * way round, so the pooled share of every handler and task moves a lot without any function's cost changing. Chunks
 * of 10 ms steps; seeded by process and start, so the fleet is the same every run; one sent from a start that follows
 * the clock ({@link #seededAsFrom}) takes the samples of the fleet sent from {@link #SEEDED_START}, whatever the hour
 * the test runs in.
 */
public final class ReleaseFleet {
    /** The start whose samples a fleet sent from a start that follows the clock takes. */
    public static final long SEEDED_START = 1_795_000_000_000_000_000L;
    public static final int PROCESSES = 20;
    public static final String OLD = "app@1.0.0";
    public static final String NEW = "app@2.0.0";
    public static final String REGRESSED = "encode_json";
    /** The regressed function as the relay names it: a Python frame's module, a dot and its function. */
    public static final String REGRESSED_NAME = "app.codec." + REGRESSED;
    public static final double OLD_SHARE = 0.20;
    public static final double NEW_SHARE = 0.22;
    public static final long STEP_NANOS = 10_000_000L;
    private static final int HANDLERS = 10;
    private static final List<String> LEAVES = List.of("db_query", "render", "log_write", "parse", "cache_get",
            "compress");
    private static final String ENVIRONMENT = "production";

    /** Frames: main, serve, work, encode_json, the handlers, the tasks, the leaves. */
    private final List<String[]> frames = new ArrayList<>();
    private final String stacksJson;
    /** Added to a chunk's start to seed its samples. */
    private final long seedShift;

    public ReleaseFleet() {
        this(0);
    }

    /**
     * A fleet to be sent from {@code start} (one that follows the test's clock) with the samples of the fleet sent
     * from {@link #SEEDED_START}: the same every run, whatever the hour.
     */
    public static ReleaseFleet seededAsFrom(long start) {
        return new ReleaseFleet(SEEDED_START - start);
    }

    private ReleaseFleet(long seedShift) {
        this.seedShift = seedShift;
        frame("main", "app.main", "app/main.py");
        frame("serve", "app.web", "app/web.py");
        frame("work", "app.worker", "app/worker.py");
        frame(REGRESSED, "app.codec", "app/codec.py");
        for (int h = 0; h < HANDLERS; h++) {
            frame("handler_" + h, "app.web", "app/web.py");
        }
        for (int h = 0; h < HANDLERS; h++) {
            frame("task_" + h, "app.worker", "app/worker.py");
        }
        LEAVES.forEach(leaf -> frame(leaf, "app.lib", "app/lib.py"));
        // stacks, leaf first as Sentry writes them: 0 = encode_json under main; then per kind (web: serve and
        // handlers, worker: work and tasks) and handler, the handler's own stack and one per leaf under it
        StringBuilder json = new StringBuilder("[[3,0]");
        for (int kind = 0; kind < 2; kind++) {
            for (int h = 0; h < HANDLERS; h++) {
                int handler = 4 + kind * HANDLERS + h;
                json.append(",[").append(handler).append(',').append(1 + kind).append(",0]");
                for (int l = 0; l < LEAVES.size(); l++) {
                    json.append(",[").append(4 + 2 * HANDLERS + l).append(',').append(handler).append(',')
                            .append(1 + kind).append(",0]");
                }
            }
        }
        stacksJson = json.append(']').toString();
    }

    private void frame(String function, String module, String file) {
        frames.add(new String[] {function, module, file});
    }

    public static String release(int process) {
        return process < PROCESSES / 2 ? OLD : NEW;
    }

    /** Even processes serve the web, odd ones run tasks. */
    public static boolean web(int process) {
        return process % 2 == 0;
    }

    /** Threads sampled: four where the release's load is (web servers in the old release, workers in the new). */
    public static int threads(int process) {
        return web(process) == release(process).equals(OLD) ? 4 : 1;
    }

    public static String profilerId(int process) {
        return String.format(Locale.ROOT, "%032x", 0xbee5000L + process);
    }

    /** One chunk of a process: {@code steps} steps of 10 ms from {@code startNanos}, each thread sampled at each. */
    public byte[] chunk(int process, long startNanos, int steps) {
        Random random = new Random(process * 7_919L + startNanos + seedShift);
        double regressed = release(process).equals(OLD) ? OLD_SHARE : NEW_SHARE;
        int kind = web(process) ? 0 : 1;
        StringBuilder json = new StringBuilder(4096 + steps * threads(process) * 64);
        json.append("{\"version\":\"2\",\"chunk_id\":\"")
                .append(String.format(Locale.ROOT, "%016x%016x", 0xbee5000L + process, startNanos))
                .append("\",\"profiler_id\":\"").append(profilerId(process)).append("\",\"platform\":\"python\",")
                .append("\"release\":\"").append(release(process)).append("\",\"environment\":\"").append(ENVIRONMENT)
                .append("\",\"client_sdk\":{\"name\":\"sentry.python\",\"version\":\"2.40.0\"},")
                .append("\"profile\":{\"frames\":[");
        for (int f = 0; f < frames.size(); f++) {
            String[] frame = frames.get(f);
            json.append(f == 0 ? "" : ",").append("{\"function\":\"").append(frame[0]).append("\",\"module\":\"")
                    .append(frame[1]).append("\",\"filename\":\"").append(frame[2]).append("\",\"lineno\":")
                    .append(10 + f).append(",\"in_app\":true}");
        }
        json.append("],\"stacks\":").append(stacksJson).append(",\"samples\":[");
        int threads = threads(process);
        for (int i = 0; i < steps; i++) {
            long at = startNanos + i * STEP_NANOS;
            for (int thread = 1; thread <= threads; thread++) {
                FleetChunks.sample(json, i == 0 && thread == 1, stack(random, regressed, kind), thread,
                        at + thread * 1_000_000L, 1);
            }
        }
        json.append("],\"thread_metadata\":{");
        for (int thread = 1; thread <= threads; thread++) {
            json.append(thread == 1 ? "" : ",").append('"').append(thread).append("\":{\"name\":\"worker-")
                    .append(thread).append("\"}");
        }
        json.append("}}}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Sends every process's chunks to a relay, as its SDK would: {@code chunks} of {@code steps} steps each, a minute
     * apart from {@code startNanos}, each process a second after the one before.
     */
    public void send(RunningRelay relay, long startNanos, int chunks, int steps) {
        for (int p = 0; p < PROCESSES; p++) {
            for (int c = 0; c < chunks; c++) {
                byte[] chunk = chunk(p, startNanos + c * 60_000_000_000L + p * 1_000_000_000L, steps);
                int status = relay.client().post("/api/1/envelope/?sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed",
                        FleetChunks.envelope(chunk)).status();
                if (status != 200) {
                    throw new IllegalStateException("a fleet chunk was answered " + status);
                }
            }
        }
    }

    /** encode_json at its release's share; else a handler (the first ones busiest), itself or one of its leaves. */
    private static int stack(Random random, double regressed, int kind) {
        if (random.nextDouble() < regressed) {
            return 0;
        }
        int handler = (int) (HANDLERS * Math.pow(random.nextDouble(), 2));
        int perHandler = 1 + LEAVES.size();
        int within = random.nextDouble() < 0.3 ? 0 : 1 + random.nextInt(LEAVES.size());
        return 1 + (kind * HANDLERS + handler) * perHandler + within;
    }
}
