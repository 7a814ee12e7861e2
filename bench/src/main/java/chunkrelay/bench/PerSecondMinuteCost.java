package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import com.github.luben.zstd.Zstd;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A minute of a fleet of Java profilers merged split per second, as an open minute's partial and a settled minute's
 * per-second detail hold it: each profiler sends the recorded Java chunk ({@link FleetChunk}, 10 s, 10 threads) six
 * times, one after the other from its own offset in the minute, with its own ids. The chunks are translated to OTLP
 * first (not timed, held as bytes); then, per round, parsed one by one and merged into {@link Rollup#detailMerger}
 * (the merge timed, CPU of the calling thread), and the heap measured after {@code System.gc()} holding the inputs
 * alone, the merger after the last chunk, and the merged profile alone: what each holds is the difference. Median of
 * the rounds. Also the profile's estimate ({@link MergedProfile#estimatedHeapBytes()}), sample groups and (group,
 * second) entries, and the detail's bytes as written and with zstd level 1 (as the store compresses rollups), beside
 * the minute's rollup of the same chunks.
 *
 * <p>Run: {@code java -Xmx3g -cp <bench classpath> chunkrelay.bench.PerSecondMinuteCost [profilers] [rounds]}.
 */
final class PerSecondMinuteCost {
    static final int PROFILERS = 200;
    static final int CHUNKS_PER_PROFILER = 6;
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long CHUNK_NANOS = 10 * SECOND;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Medians over the rounds; bytes are the heap each holds (used heap after a GC, less the inputs'). */
    record Result(int profilers, int chunks, int groups, int entries, long mergerBytes, long profileBytes,
                  long estimatedBytes, int encodedBytes, int zstdBytes, double mergeCpuMillis, int rollupBytes,
                  int rollupZstdBytes) {
    }

    private PerSecondMinuteCost() {
    }

    public static void main(String[] args) {
        int profilers = args.length > 0 ? Integer.parseInt(args[0]) : PROFILERS;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        lines(measure(profilers, rounds)).forEach(System.out::println);
    }

    static Result measure(int profilers, int rounds) {
        FleetChunk fleet = new FleetChunk();
        // the minute after the template's, so that every profiler's offset keeps its chunks' times positive
        long minute = Math.floorDiv(fleet.firstSampleNanos(), MINUTE) * MINUTE + MINUTE;
        List<byte[]> otlp = chunks(fleet, profilers, minute);
        long[] mergerBytes = new long[rounds];
        long[] profileBytes = new long[rounds];
        long[] mergeNanos = new long[rounds];
        MergedProfile profile = null;
        for (int round = 0; round < rounds; round++) {
            profile = null;
            long inputs = usedAfterGc();
            ProfileMerger merger = Rollup.detailMerger(minute, minute + MINUTE, 60);
            for (byte[] chunk : otlp) {
                ExportProfilesServiceRequest request = parse(chunk);
                long cpu = THREADS.getCurrentThreadCpuTime();
                merger.add(request, "java", "app@1", "production");
                mergeNanos[round] += THREADS.getCurrentThreadCpuTime() - cpu;
            }
            mergerBytes[round] = usedAfterGc() - inputs;
            long cpu = THREADS.getCurrentThreadCpuTime();
            profile = merger.result();
            mergeNanos[round] += THREADS.getCurrentThreadCpuTime() - cpu;
            merger = null;
            profileBytes[round] = usedAfterGc() - inputs;
        }
        TreeSet<String> included = new TreeSet<>();
        for (int c = 0; c < otlp.size(); c++) {
            included.add(String.format(Locale.ROOT, "%032x", c));
        }
        byte[] detail = RollupCodec.write(new Rollup(minute, minute + MINUTE, profile, included, new TreeMap<>()));
        // the minute's rollup of the same chunks, which the detail is written beside
        ProfileMerger whole = Rollup.merger(minute, minute + MINUTE, 60);
        otlp.forEach(chunk -> whole.add(parse(chunk), "java", "app@1", "production"));
        byte[] rollup = RollupCodec.write(new Rollup(minute, minute + MINUTE, whole.result(), included,
                new TreeMap<>()));
        return new Result(profilers, otlp.size(), profile.samples().size(), profile.stepEntries(), median(mergerBytes),
                median(profileBytes), profile.estimatedHeapBytes(), detail.length, Zstd.compress(detail, 1).length,
                median(mergeNanos) / 1e6, rollup.length, Zstd.compress(rollup, 1).length);
    }

    static List<String> lines(Result r) {
        return List.of(
                String.format(Locale.ROOT, "a minute of %d Java profilers, %d chunks, merged split per second:",
                        r.profilers(), r.chunks()),
                String.format(Locale.ROOT, "  sample groups %,d, (group, second) entries %,d", r.groups(),
                        r.entries()),
                String.format(Locale.ROOT, "  heap held: merger after the last chunk %,d B, merged profile %,d B"
                        + " (estimate %,d B)", r.mergerBytes(), r.profileBytes(), r.estimatedBytes()),
                String.format(Locale.ROOT, "  detail object: %,d B written, %,d B zstd level 1 (the minute's rollup:"
                        + " %,d B, %,d B)", r.encodedBytes(), r.zstdBytes(), r.rollupBytes(), r.rollupZstdBytes()),
                String.format(Locale.ROOT, "  merge: %.0f ms CPU (the adds and the result, parsing not counted)",
                        r.mergeCpuMillis()));
    }

    /**
     * Each profiler's six chunks from its own offset (a 200th of a chunk's length apart), one after the other, as
     * OTLP bytes: the minute's share of them is what its detail holds.
     */
    private static List<byte[]> chunks(FleetChunk fleet, int profilers, long minute) {
        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
        ChunkItemHeader header = BenchChunks.item(BenchChunks.JAVA).header();
        List<byte[]> chunks = new ArrayList<>();
        for (int p = 0; p < profilers; p++) {
            long offset = p * (CHUNK_NANOS / profilers);
            for (int c = 0; c < CHUNKS_PER_PROFILER; c++) {
                long shift = minute + offset + c * CHUNK_NANOS - fleet.firstSampleNanos();
                byte[] json = fleet.rewrite(String.format(Locale.ROOT, "%032x", p + 1),
                        String.format(Locale.ROOT, "%032x", p * CHUNKS_PER_PROFILER + c + 1), "app@1", shift);
                ChunkOutcome outcome = processor.process(json, header);
                if (!(outcome instanceof ChunkOutcome.Accepted accepted)) {
                    throw new IllegalStateException("a fleet chunk was rejected: " + outcome);
                }
                chunks.add(translator.translate(accepted.chunk(), TranslationContext.forProject(1)).toByteArray());
            }
        }
        return chunks;
    }

    private static ExportProfilesServiceRequest parse(byte[] otlp) {
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The used heap after full collections, the smallest of three (a collection can leave garbage behind). */
    private static long usedAfterGc() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            least = Math.min(least, runtime.totalMemory() - runtime.freeMemory());
        }
        return least;
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
