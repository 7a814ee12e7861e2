package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ProfileDiff;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.TimeGrid;
import chunkrelay.translate.view.Timeline;
import chunkrelay.translate.view.ViewFilter;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pprof export of a range of chunks, as the views' profile route and the export command run it (list, read,
 * decompress, parse, merge, write gzipped pprof), against merely reading and decompressing the same objects, in the
 * same process against a real S3 server (S3Proxy in memory); likewise the diff of the range's two halves and its
 * timeline. CPU time of the measuring thread (the S3 server's own threads are the same for every row and not
 * counted), median of rounds.
 */
final class ViewExportCost {
    static final int CHUNKS = 60;
    private static final int ROUNDS = 7;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    record Result(long otlpBytes, double readMillis, double exportMillis, long pprofBytes, double diffMillis,
                  double timelineMillis) {
    }

    private ViewExportCost() {
    }

    static Result measure() throws Exception {
        RecordedChunk java = Fixtures.sdkChunks().stream().filter(c -> c.request().equals("java-8.43.0/001"))
                .findFirst().orElseThrow();
        ChunkOutcome outcome = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES)
                .process(java.payload(), new ChunkItemHeader("java", null));
        ExportProfilesServiceRequest otlp = new ChunkTranslator("chunk-relay", "bench")
                .translate(((ChunkOutcome.Accepted) outcome).chunk(), TranslationContext.forProject(1));
        byte[] otlpBytes = otlp.toByteArray();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             ChunkArchive archive = new ChunkArchive(s3.applyTo(ArchiveSettings.defaults()).withBucket("bench"),
                     Clock.systemUTC())) {
            LocalDate day = LocalDate.of(2026, 11, 22);
            for (int i = 0; i < CHUNKS; i++) {
                ArchiveKey key = ArchiveKey.of("1", Instant.parse("2026-11-22T02:00:00Z").plusSeconds(10L * i),
                        "f99ed13589874b4b8bdd0a0bbe143288", String.format(Locale.ROOT, "%032x", i + 1L));
                archive.archiveSentryForm(key, java.payload(), Map.of());
                archive.storeDerivedOtlp(key, otlpBytes, Map.of());
            }
            double[] read = new double[ROUNDS];
            double[] export = new double[ROUNDS];
            double[] diff = new double[ROUNDS];
            double[] timeline = new double[ROUNDS];
            long pprofBytes = 0;
            for (int round = 0; round < ROUNDS; round++) {
                long start = THREADS.getCurrentThreadCpuTime();
                long bytes = 0;
                for (ArchivedChunk chunk : archive.list("1", day, day)) {
                    bytes += archive.readOtlp(chunk).length;
                }
                read[round] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
                if (bytes != (long) otlpBytes.length * CHUNKS) {
                    throw new IllegalStateException("read " + bytes + " bytes, expected " + otlpBytes.length * CHUNKS);
                }
                start = THREADS.getCurrentThreadCpuTime();
                ProfileMerger merger = new ProfileMerger(ViewFilter.all());
                for (ArchivedChunk chunk : archive.list("1", day, day)) {
                    merger.add(ExportProfilesServiceRequest.parseFrom(archive.readOtlp(chunk)));
                }
                CountingStream out = new CountingStream();
                PprofWriter.write(merger.result(), out);
                export[round] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
                pprofBytes = out.count;

                // the diff route: the range's first half against its second half, each merged, then compared
                start = THREADS.getCurrentThreadCpuTime();
                ProfileMerger baseline = new ProfileMerger(ViewFilter.all());
                ProfileMerger comparison = new ProfileMerger(ViewFilter.all());
                for (ArchivedChunk chunk : archive.list("1", day, day)) {
                    ExportProfilesServiceRequest request = ExportProfilesServiceRequest.parseFrom(archive.readOtlp(chunk));
                    (chunkIndex(chunk) < CHUNKS / 2 ? baseline : comparison).add(request);
                }
                ProfileDiff.Result compared = ProfileDiff.compare("first half", baseline.result(), "second half",
                        comparison.result());
                diff[round] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
                if (compared.functions().isEmpty()) {
                    throw new IllegalStateException("an empty diff");
                }

                start = THREADS.getCurrentThreadCpuTime();
                long from = Instant.parse("2026-11-22T02:00:00Z").getEpochSecond() * 1_000_000_000L;
                ProfileMerger all = new ProfileMerger(ViewFilter.all(),
                        TimeGrid.aligned(from, from + CHUNKS * 10_000_000_000L + 10_000_000_000L, 5_000_000_000L),
                        false);
                for (ArchivedChunk chunk : archive.list("1", day, day)) {
                    all.add(ExportProfilesServiceRequest.parseFrom(archive.readOtlp(chunk)));
                }
                MergedProfile merged = all.result();
                Timeline.Result steps = Timeline.of(merged, Timeline.By.THREAD);
                timeline[round] = (THREADS.getCurrentThreadCpuTime() - start) / 1e6;
                if (steps.series().stream().mapToLong(Timeline.Series::samples).sum() != merged.sampleCount()) {
                    throw new IllegalStateException("the timeline lost samples");
                }
            }
            return new Result((long) otlpBytes.length * CHUNKS, Medians.of(read), Medians.of(export), pprofBytes,
                    Medians.of(diff), Medians.of(timeline));
        }
    }

    /** The chunk's place in the range: its chunk id is its index plus one. */
    private static int chunkIndex(ArchivedChunk chunk) {
        return Integer.parseInt(chunk.key().chunkId(), 16) - 1;
    }

    private static final class CountingStream extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }

    static List<String> lines(Result r) {
        double mb = r.otlpBytes() / 1e6;
        return List.of(String.format(Locale.ROOT, "read and decompress only   %8.1f ms CPU  %8.1f MB/s of OTLP",
                        r.readMillis(), mb / (r.readMillis() / 1e3)),
                String.format(Locale.ROOT, "pprof export (merge, gzip) %8.1f ms CPU  %8.1f MB/s of OTLP   x %.2f;"
                        + " %d bytes of gzipped pprof", r.exportMillis(), mb / (r.exportMillis() / 1e3),
                        r.exportMillis() / r.readMillis(), r.pprofBytes()),
                String.format(Locale.ROOT, "diff of its two halves     %8.1f ms CPU  %8.1f MB/s of OTLP   x %.2f",
                        r.diffMillis(), mb / (r.diffMillis() / 1e3), r.diffMillis() / r.readMillis()),
                String.format(Locale.ROOT, "timeline, 120 steps        %8.1f ms CPU  %8.1f MB/s of OTLP   x %.2f",
                        r.timelineMillis(), mb / (r.timelineMillis() / 1e3), r.timelineMillis() / r.readMillis()));
    }
}
