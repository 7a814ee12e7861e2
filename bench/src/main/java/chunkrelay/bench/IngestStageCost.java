package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.envelope.archive.ArchivedMetadata;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.ObjectStore;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * What each stage the relay runs on every chunk costs on its own, against a bare Jackson token pass over the chunk's
 * JSON: inflating the SDK's gzipped request, parsing and normalising, translating and serialising, compressing
 * both forms, and writing each into the embedded store (S3Proxy on the filesystem, in this thread, with the
 * metadata the relay writes). CPU time of the calling thread (system time included, so the store's file writes
 * count), median of rounds taken in turns. Their sum is what the relay cannot avoid per chunk as it is built: the
 * end-to-end rows show what it costs on top (HTTP, scheduling, links, GC, JIT).
 */
final class IngestStageCost {
    private static final int WARM_UP_ROUNDS = 150;
    private static final int ROUNDS = 15;
    private static final int CALLS_PER_ROUND = 10;
    /** The parse again, with other spellings: beside the stages, not one of them, so not in their sum. */
    private static final String EXPONENT_PARSE = "parse, timestamps 1.7E9 (no sum)";
    /**
     * Issue 49's archive floor ({@link ArchiveFloorPass}), beside the stages: their sum against it is the least the
     * relay's CPU per chunk can be against that floor while it runs each stage as it does.
     */
    private static final String ARCHIVE_FLOOR = "archive floor (no sum)";

    /** One stage: median CPU microseconds per call. */
    record Stage(String name, double cpuMicros) {
    }

    private IngestStageCost() {
    }

    /**
     * The stages for one recorded chunk ({@link BenchChunks#JAVA}, {@link BenchChunks#NODE} or
     * {@link BenchChunks#PYTHON}), the floor first.
     */
    static List<Stage> measure(String chunkName) throws IOException {
        BenchChunks.Item item = BenchChunks.item(chunkName);
        SdkRequest request = Fixtures.sdkRequest(item.source());
        byte[] payload = item.payload();
        ChunkItemHeader header = item.header();
        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
        TranslationContext context = TranslationContext.forProject(1);
        ProfileChunk chunk = item.normalise();
        ExportProfilesServiceRequest unlinked = translator.translate(chunk, context);
        byte[] otlp = unlinked.toByteArray();
        long minute = TimeBuckets.minuteOf(chunk.firstSampleNanos());
        Path directory = Files.createTempDirectory("chunk-relay-stages-");
        try (EmbeddedS3Server s3 = EmbeddedS3Server.filesystem(directory);
             ObjectStore store = ObjectStore.inProcess(s3, s3.applyTo(ArchiveSettings.defaults()).withBucket("bench"),
                     Clock.systemUTC());
             ChunkArchive archive = new ChunkArchive(store)) {
            byte[] sentryStored = archive.compress(payload);
            byte[] otlpStored = archive.compress(otlp);
            Map<String, String> metadata = ArchivedMetadata.of(chunk, new RelayVersion());
            int[] written = {0};
            Map<String, IntSupplier> stages = new LinkedHashMap<>();
            stages.put("bare Jackson token pass (floor)", () -> (int) JacksonTokenPass.tokens(payload));
            byte[] gzippedPayload = Gzip.of(payload);
            stages.put(ARCHIVE_FLOOR, () -> (int) ArchiveFloorPass.archive(gzippedPayload));
            stages.put("inflate the request (gzip)", () -> inflate(request.body()));
            stages.put("parse and normalise", () -> processor.process(payload, header).hashCode());
            // the same chunk as a JSON writer of doubles spells its timestamps: the relay reads both exactly
            byte[] exponents = timestampsWithExponents(payload);
            stages.put(EXPONENT_PARSE, () -> processor.process(exponents, header).hashCode());
            stages.put("translate and serialise", () -> translator.translate(chunk, context).toByteArray().length);
            // what the open minute of its first sample takes at receipt (split per second, the views' partials), and
            // the same merge kept per minute, as a minute's rollup is
            stages.put("merge into its open minute", () -> merge(Rollup.detailMerger(minute, minute
                    + TimeBuckets.MINUTE_NANOS, 60), unlinked));
            stages.put("merge into a minute rollup", () -> merge(Rollup.merger(minute, minute
                    + TimeBuckets.MINUTE_NANOS, 60), unlinked));
            stages.put("zstd, Sentry form", () -> archive.compress(payload).length);
            stages.put("zstd, OTLP form", () -> archive.compress(otlp).length);
            stages.put("store Sentry form", () -> store(archive, written, sentryStored, metadata));
            stages.put("store OTLP form", () -> store(archive, written, otlpStored, metadata));
            return measure(stages);
        } finally {
            BenchmarkSuite.deleteTree(directory);
        }
    }

    /**
     * The lines the report prints for one chunk: each stage, its ratio to the floor, and their sum, also against the
     * archive floor.
     */
    static List<String> lines(String label, List<Stage> stages) {
        double floor = stages.get(0).cpuMicros();
        List<String> lines = new ArrayList<>();
        double sum = 0;
        double archiveFloor = 0;
        for (Stage stage : stages) {
            lines.add(String.format(Locale.ROOT, "%-6s %-34s %8.0f us  x %.2f", label, stage.name(),
                    stage.cpuMicros(), stage.cpuMicros() / floor));
            if (stage.name().equals(ARCHIVE_FLOOR)) {
                archiveFloor = stage.cpuMicros();
            } else if (stage != stages.get(0) && !stage.name().equals(EXPONENT_PARSE)) {
                sum += stage.cpuMicros();
            }
        }
        lines.add(String.format(Locale.ROOT, "%-6s %-34s %8.0f us  x %.2f, x %.2f the archive floor", label,
                "sum of the stages", sum, sum / floor, sum / archiveFloor));
        return lines;
    }

    private static List<Stage> measure(Map<String, IntSupplier> stages) {
        List<Stage> result = new ArrayList<>();
        StageCpuTime.medianMicros(stages, WARM_UP_ROUNDS, ROUNDS, CALLS_PER_ROUND)
                .forEach((name, micros) -> result.add(new Stage(name, micros)));
        return result;
    }

    private static int merge(ProfileMerger merger, ExportProfilesServiceRequest chunk) {
        merger.add(chunk, "java", "app@1", "production");
        return merger.result().samples().size();
    }

    /** The payload with every sample timestamp written as Java writes the double, {@code 1.7953145309198811E9}. */
    private static byte[] timestampsWithExponents(byte[] payload) {
        Matcher timestamp = Pattern.compile("\"timestamp\":([0-9]+\\.[0-9]+)")
                .matcher(new String(payload, StandardCharsets.UTF_8));
        StringBuilder spelled = new StringBuilder();
        while (timestamp.find()) {
            timestamp.appendReplacement(spelled, "\"timestamp\":"
                    + Double.toString(Double.parseDouble(timestamp.group(1))));
        }
        return timestamp.appendTail(spelled).toString().getBytes(StandardCharsets.UTF_8);
    }

    /** As the relay decodes a body: a gzip stream over the wire bytes, read in 64 KiB steps. */
    private static int inflate(byte[] body) {
        byte[] buffer = new byte[64 * 1024];
        int total = 0;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body), 64 * 1024)) {
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                total += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return total;
    }

    /** Writes one more object, as the relay writes each form: a fresh chunk key, created only if absent. */
    private static int store(ChunkArchive archive, int[] written, byte[] stored, Map<String, String> metadata) {
        int n = ++written[0];
        ArchiveKey key = ArchiveKey.of("1", Instant.parse("2026-11-22T02:00:00Z").plusSeconds(n / 1000),
                "f99ed13589874b4b8bdd0a0bbe143288", String.format(Locale.ROOT, "%032x", n));
        return archive.storeCompressedDerivedOtlp(key, stored, metadata).ordinal();
    }
}
