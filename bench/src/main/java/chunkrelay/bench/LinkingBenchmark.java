package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.SpanTimeline;
import chunkrelay.translate.TranslationContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The cost of linking: translating the recorded Java chunk (10 s, 45 threads) without spans, and with the spans a
 * busy service would have sent for its profiler over those 10 s ({@link #busyServiceSpans}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LinkingBenchmark {
    /** Requests per second of the synthetic service, each a root span with three nested children. */
    static final int REQUESTS_PER_SECOND = 100;

    private ProfileChunk chunk;
    private ChunkTranslator translator;
    private TranslationContext unlinked;
    private TranslationContext linked;

    @Setup
    public void setUp() {
        chunk = javaChunk();
        translator = new ChunkTranslator("chunk-relay", "bench");
        unlinked = TranslationContext.forProject(1);
        linked = unlinked.withSpans(SpanTimeline.of(busyServiceSpans(chunk)));
    }

    static ProfileChunk javaChunk() {
        RecordedChunk recorded = Fixtures.sdkChunks().stream().filter(c -> c.request().equals("java-8.43.0/001"))
                .findFirst().orElseThrow();
        ChunkOutcome outcome = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES)
                .process(recorded.payload(), new ChunkItemHeader("java", null));
        return ((ChunkOutcome.Accepted) outcome).chunk();
    }

    /**
     * Over the chunk's time, {@link #REQUESTS_PER_SECOND} requests of 40 ms spread over the chunk's threads, each a
     * root span with three children nested in it (20, 10 and 5 ms): about 4 000 spans for a 10 s chunk.
     */
    static List<SpanRecord> busyServiceSpans(ProfileChunk chunk) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int s = 0; s < chunk.sampleCount(); s++) {
            first = Math.min(first, chunk.sampleTimestampNanos(s));
            last = Math.max(last, chunk.sampleTimestampNanos(s));
        }
        String profiler = chunk.profilerId().toHex();
        List<SpanRecord> spans = new ArrayList<>();
        long step = 1_000_000_000L / REQUESTS_PER_SECOND;
        int request = 0;
        for (long start = first; start < last; start += step, request++) {
            String thread = chunk.threadId(request % chunk.threadCount());
            String trace = String.format(Locale.ROOT, "%032x", request + 1L);
            long[] durations = {40_000_000L, 20_000_000L, 10_000_000L, 5_000_000L};
            for (int depth = 0; depth < durations.length; depth++) {
                spans.add(new SpanRecord(trace, String.format(Locale.ROOT, "%016x", request * 4L + depth + 1),
                        null, null, depth == 0, profiler, thread, start + depth * 1_000_000L,
                        start + depth * 1_000_000L + durations[depth]));
            }
        }
        return spans;
    }

    @Benchmark
    public Object translateWithoutSpans() {
        return translator.translateWithLinks(chunk, unlinked);
    }

    @Benchmark
    public Object translateWithSpans() {
        return translator.translateWithLinks(chunk, linked);
    }
}
