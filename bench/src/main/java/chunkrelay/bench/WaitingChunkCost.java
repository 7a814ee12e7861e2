package chunkrelay.bench;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.ObjectStore;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.SampleLinker;
import chunkrelay.translate.SpanTimeline;
import chunkrelay.translate.TranslationContext;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * What a chunk waiting for its link window costs, held the two ways the derivation can hold it: as its OTLP form's
 * bytes, compressed as the archive stores them (at the window's end decompressed, parsed, linked, serialised and
 * compressed again), or as the OTLP object the translator made (at the window's end linked, serialised and
 * compressed). CPU of the calling thread per chunk, median of rounds taken in turns, against a bare Jackson token
 * pass over the chunk's JSON; the heap each form holds, measured by holding {@value #HELD} of them.
 */
final class WaitingChunkCost {
    private static final int WARM_UP_ROUNDS = 100;
    private static final int ROUNDS = 21;
    private static final int CALLS_PER_ROUND = 5;
    private static final int HELD = 40;
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    /** Median CPU microseconds per chunk by stage, the floor first, and the heap held per waiting chunk. */
    record Result(Map<String, Double> cpuMicros, long serialisedBytes, long storedBytes, long objectHeapBytes) {
    }

    private WaitingChunkCost() {
    }

    static Result measure(String chunkName) throws Exception {
        BenchChunks.Item item = BenchChunks.item(chunkName);
        ProfileChunk chunk = item.normalise();
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
        TranslationContext context = TranslationContext.forProject(1);
        SpanTimeline spans = SpanTimeline.of(LinkingBenchmark.busyServiceSpans(chunk));
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             ObjectStore store = ObjectStore.inProcess(s3, s3.applyTo(ArchiveSettings.defaults()).withBucket("bench"),
                     Clock.systemUTC());
             ChunkArchive archive = new ChunkArchive(store)) {
            ExportProfilesServiceRequest unlinked = translator.translate(chunk, context);
            byte[] stored = archive.compress(unlinked.toByteArray());
            Map<String, IntSupplier> stages = new LinkedHashMap<>();
            stages.put("floor", () -> (int) JacksonTokenPass.tokens(item.payload()));
            stages.put("bytes: receipt", () -> archive.compress(translator.translate(chunk, context).toByteArray())
                    .length);
            stages.put("bytes: window, linked", () -> archive.compress(SampleLinker.link(parse(archive.decompress(
                    stored)), spans).request().toByteArray()).length);
            stages.put("object: receipt", () -> translator.translate(chunk, context).getSerializedSize());
            stages.put("object: window, linked", () -> archive.compress(SampleLinker.link(unlinked, spans).request()
                    .toByteArray()).length);
            stages.put("object: window, no span", () -> archive.compress(unlinked.toByteArray()).length);
            return new Result(cpuMicros(stages), unlinked.getSerializedSize(), stored.length,
                    heldBytes(() -> translator.translate(chunk, context)));
        }
    }

    static List<String> lines(String label, Result result) {
        Map<String, Double> cpu = result.cpuMicros();
        double floor = cpu.get("floor");
        List<String> lines = new ArrayList<>();
        cpu.forEach((stage, micros) -> lines.add(String.format(Locale.ROOT, "%-6s %-26s %8.0f us  x %.2f", label,
                stage, micros, micros / floor)));
        double bytes = cpu.get("bytes: receipt") + cpu.get("bytes: window, linked");
        double object = cpu.get("object: receipt") + cpu.get("object: window, linked");
        lines.add(String.format(Locale.ROOT, "%-6s linked chunk, bytes %.0f us (x %.2f), object %.0f us (x %.2f):"
                + " object / bytes %.2f", label, bytes, bytes / floor, object, object / floor, object / bytes));
        double bytesUnlinked = cpu.get("bytes: receipt");
        double objectUnlinked = cpu.get("object: receipt") + cpu.get("object: window, no span");
        lines.add(String.format(Locale.ROOT, "%-6s chunk with no span, bytes %.0f us, object %.0f us: object / bytes"
                + " %.2f", label, bytesUnlinked, objectUnlinked, objectUnlinked / bytesUnlinked));
        lines.add(String.format(Locale.ROOT, "%-6s held while waiting: bytes %d B (serialised %d B), object %d B:"
                + " object / bytes %.1f, object / serialised %.2f", label, result.storedBytes(),
                result.serialisedBytes(), result.objectHeapBytes(),
                (double) result.objectHeapBytes() / result.storedBytes(),
                (double) result.objectHeapBytes() / result.serialisedBytes()));
        return lines;
    }

    private static ExportProfilesServiceRequest parse(byte[] otlp) {
        try {
            return ExportProfilesServiceRequest.parseFrom(otlp);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Double> cpuMicros(Map<String, IntSupplier> stages) {
        return StageCpuTime.medianMicros(stages, WARM_UP_ROUNDS, ROUNDS, CALLS_PER_ROUND);
    }

    /** The heap one object holds: {@value #HELD} of them held at once, after a GC each side, median of 3 tries. */
    private static long heldBytes(java.util.function.Supplier<Object> make) {
        long[] tries = new long[3];
        for (int t = 0; t < tries.length; t++) {
            long before = usedAfterGc();
            Object[] held = new Object[HELD];
            for (int i = 0; i < HELD; i++) {
                held[i] = make.get();
            }
            long after = usedAfterGc();
            tries[t] = (after - before) / HELD;
            if (held[HELD - 1] == null) {
                throw new IllegalStateException();
            }
        }
        Arrays.sort(tries);
        return tries[1];
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
