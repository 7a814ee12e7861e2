package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.art.ArtSampleReplay;
import chunkrelay.chunk.art.ArtTrace;
import chunkrelay.chunk.art.ArtTraceException;
import chunkrelay.chunk.art.ArtTraceParser;
import chunkrelay.chunk.fixtures.ArtTraces;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The Android ART path over the real sampling trace of the fixtures (1.3 MB decoded): parsing, parsing with the
 * replay into timed samples, and the whole chunk (JSON, base64, parse, replay, normalisation), each against a bare
 * pass that reads every byte of the same trace once and builds nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ArtTraceBenchmark {
    static final String ITEM_PLATFORM = "android";

    private byte[] trace;
    private byte[] chunk;
    private ChunkProcessor processor;
    private ChunkItemHeader header;

    @Setup
    public void setUp() {
        trace = ArtTraces.realSamplingTrace();
        chunk = ArtTraces.wrappedChunk(trace);
        processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        header = new ChunkItemHeader(ITEM_PLATFORM, "application/json");
    }

    static int traceBytes() {
        return ArtTraces.realSamplingTrace().length;
    }

    /** Floor: every byte of the trace read once, nothing built. */
    @Benchmark
    public long barePass() {
        long sum = 0;
        for (byte b : trace) {
            sum += b;
        }
        return sum;
    }

    @Benchmark
    public ArtTrace parse() throws ArtTraceException {
        return ArtTraceParser.parse(trace);
    }

    @Benchmark
    public Object parseAndReplay() throws ArtTraceException {
        return ArtSampleReplay.replay(ArtTraceParser.parse(trace), trace.length);
    }

    @Benchmark
    public Object wholeChunk() {
        return processor.process(chunk, header);
    }
}
