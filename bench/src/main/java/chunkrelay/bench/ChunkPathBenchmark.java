package chunkrelay.bench;

import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The chunk path stage by stage, over the same bytes as its floors: a bare Jackson token pass over the chunk's
 * JSON (no objects built) and protobuf serialisation of the finished request. Sample-time mode, so that the suite
 * can report the median call, which other processes on a shared machine disturb less than the mean.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ChunkPathBenchmark {
    @Param({BenchChunks.NODE, BenchChunks.JAVA, BenchChunks.PYTHON, BenchChunks.SYNTHETIC})
    public String chunk;

    private byte[] payload;
    private BenchChunks.Item item;
    private ChunkProcessor processor;
    private ChunkTranslator translator;
    private TranslationContext context;
    private ProfileChunk normalised;
    private ExportProfilesServiceRequest request;

    @Setup
    public void setUp() {
        item = BenchChunks.item(chunk);
        payload = item.payload();
        processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        translator = new ChunkTranslator("chunk-relay", "bench");
        context = TranslationContext.forProject(1);
        normalised = item.normalise();
        request = translator.translate(normalised, context);
    }

    /** Floor of the input side: every token, nothing kept. */
    @Benchmark
    public long jacksonTokenPass() {
        return JacksonTokenPass.tokens(payload);
    }

    @Benchmark
    public Object parseAndNormalise() {
        return processor.process(payload, item.header());
    }

    @Benchmark
    public ExportProfilesServiceRequest translate() {
        return translator.translate(normalised, context);
    }

    /** Floor of the output side, and the serialise stage itself: the relay does nothing else to write it. */
    @Benchmark
    public byte[] protobufSerialise() {
        return request.toByteArray();
    }

    /** What the relay does per chunk: parse, normalise, translate, serialise. */
    @Benchmark
    public byte[] wholeChunkPath() {
        ProfileChunk chunk = ((chunkrelay.chunk.ChunkOutcome.Accepted) processor.process(payload, item.header())).chunk();
        return translator.translate(chunk, context).toByteArray();
    }
}
