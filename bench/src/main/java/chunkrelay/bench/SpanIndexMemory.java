package chunkrelay.bench;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.links.SpanIndex;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The heap a {@link SpanIndex} retains for a number of spans, measured as used heap after GC before and after. */
final class SpanIndexMemory {
    private static final int SPANS_PER_PROFILER = 1_000;

    record Measured(long bytes, int profilers) {
    }

    private SpanIndexMemory() {
    }

    static Measured measure(int spans) {
        LinksConfig config = new LinksConfig(Duration.ofSeconds(30), 1_000_000, Duration.ofMinutes(10), 0,
                0, Duration.ofMinutes(1), 1, false);
        long before = usedAfterGc();
        List<SpanRecord> records = new ArrayList<>(spans);
        long start = 1_795_314_530_000_000_000L;
        int profilers = Math.max(1, spans / SPANS_PER_PROFILER);
        for (int i = 0; i < spans; i++) {
            records.add(new SpanRecord(String.format(Locale.ROOT, "%032x", i / 4 + 1L),
                    String.format(Locale.ROOT, "%016x", i + 1L), String.format(Locale.ROOT, "%016x", i / 4 * 4 + 1L),
                    String.format(Locale.ROOT, "%016x", i / 4 * 4 + 1L), i % 4 == 0,
                    String.format(Locale.ROOT, "%032x", i % profilers + 1L), Integer.toString(i % 40),
                    start + i * 1_000_000L, start + i * 1_000_000L + 40_000_000L));
        }
        SpanIndex index = new SpanIndex(config, new SimpleMeterRegistry());
        // as the relay receives them: a transaction (four spans) at a time, the index holding the only copies
        for (int i = 0; i < spans; i += 4) {
            index.add(1, copies(records.subList(i, Math.min(spans, i + 4))));
        }
        records = null;
        long after = usedAfterGc();
        if (index.spans(1, String.format(Locale.ROOT, "%032x", 1L), 0, Long.MAX_VALUE).isEmpty()) {
            throw new IllegalStateException("the index lost its spans");
        }
        return new Measured(after - before, profilers);
    }

    /** Fresh strings, as a parser produces them, so that the measured heap holds the index's own copies. */
    private static List<SpanRecord> copies(List<SpanRecord> spans) {
        List<SpanRecord> copies = new ArrayList<>(spans.size());
        for (SpanRecord s : spans) {
            copies.add(new SpanRecord(copy(s.traceId()), copy(s.spanId()), copy(s.parentSpanId()),
                    copy(s.segmentId()), s.segment(), copy(s.profilerId()), copy(s.threadId()),
                    s.startNanos(), s.endNanos()));
        }
        return copies;
    }

    /** new String(String) would share the original's bytes. */
    private static String copy(String text) {
        return new String(text.toCharArray());
    }

    private static long usedAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }
}
