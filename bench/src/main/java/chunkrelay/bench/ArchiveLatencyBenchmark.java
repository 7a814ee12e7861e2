package chunkrelay.bench;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.storage.ArchiveFixtures;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveResult;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.EmbeddedS3Server;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Archive latency per chunk against the embedded S3Proxy, as a ratio to a floor measured in the same run:
 * one plain PutObject of the chunk's compressed Sentry form through the same kind of client. Not a section of
 * {@link BenchmarkSuite}: a program of its own, run with the bench module's classpath (docs/performance.md).
 */
public final class ArchiveLatencyBenchmark {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 21);

    private ArchiveLatencyBenchmark() {
    }

    /** {@code args[0]}: chunks per measurement, 500 by default. */
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        RecordedChunk largest = Fixtures.sdkChunks().stream()
                .max(Comparator.comparingInt(c -> c.payload().length)).orElseThrow();
        byte[] sentry = largest.payload();
        // the archive knows no OTLP: the SDK payload stands in for the OTLP form (similar size and redundancy)
        byte[] otlp = sentry;
        System.out.printf("chunk payload %d bytes (%s), %d chunks per measurement%n", sentry.length,
                largest.request(), n);
        run("in-memory", EmbeddedS3Server.inMemory(), sentry, otlp, n);
        Path dir = Files.createTempDirectory("archive-bench");
        run("filesystem", EmbeddedS3Server.filesystem(dir), sentry, otlp, n);
    }

    private static void run(String backend, EmbeddedS3Server server, byte[] sentry, byte[] otlp, int n)
            throws Exception {
        try (server; S3Client s3 = ArchiveFixtures.rawClient(server)) {
            ArchiveSettings settings = server.applyTo(ArchiveSettings.defaults()).withBucket("bench");
            s3.createBucket(b -> b.bucket("bench"));
            try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
                byte[] compressed = archive.compress(sentry);
                int[] next = {0};
                Runnable put = () -> {
                    String key = "floor/" + next[0]++;
                    s3.putObject(b -> b.bucket("bench").key(key), RequestBody.fromBytes(compressed));
                };
                int[] id = {0};
                Runnable store = () -> archive(archive, id[0]++, sentry, otlp);
                time(put, n);
                time(store, n);
                double floor = time(put, n);
                double stored = time(store, n);
                int[] dup = {0};
                double duplicateS3 = time(() -> archive(archive, dup[0]++ % (2 * n), sentry, otlp), n);
                double zstd = time(() -> archive.compress(sentry), n);
                double parallel = parallel(archive, sentry, otlp, n, 8);
                System.out.printf("%-10s floor PutObject        %8.3f ms/op%n", backend, floor);
                System.out.printf("%-10s archive (STORED)       %8.3f ms/op  ratio %.2f%n", backend, stored, stored / floor);
                System.out.printf("%-10s archive (DUPLICATE,S3) %8.3f ms/op  ratio %.2f%n", backend, duplicateS3,
                        duplicateS3 / floor);
                System.out.printf("%-10s zstd of one form       %8.3f ms/op  ratio %.2f%n", backend, zstd, zstd / floor);
                System.out.printf("%-10s 8 threads STORED       %8.0f chunks/s (%.3f ms/op sequential equivalent)%n",
                        backend, 1000.0 / parallel, parallel);
            }
        }
    }

    /** Archives chunk {@code id} as the relay does: its Sentry form, then the OTLP form derived from it. */
    private static ArchiveResult archive(ChunkArchive archive, int id, byte[] sentry, byte[] otlp) {
        ArchiveKey key = new ArchiveKey("42", DAY, "0123456789abcdef0123456789abcdef", String.format("%032x", id));
        Map<String, String> metadata = Map.of(ChunkMetadata.PLATFORM, "java");
        archive.archiveSentryForm(key, sentry, metadata);
        return archive.storeDerivedOtlp(key, otlp, metadata);
    }

    /** Mean milliseconds per run of {@code op}. */
    private static double time(Runnable op, int n) {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            op.run();
        }
        return (System.nanoTime() - start) / 1e6 / n;
    }

    /** Milliseconds per stored chunk with {@code threads} archivers on new chunks. */
    private static double parallel(ChunkArchive archive, byte[] sentry, byte[] otlp, int n, int threads)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long start = System.nanoTime();
            List<Future<ArchiveResult>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = 1_000_000 + i;
                results.add(pool.submit(() -> archive(archive, id, sentry, otlp)));
            }
            for (Future<ArchiveResult> result : results) {
                if (result.get() != ArchiveResult.STORED) {
                    throw new IllegalStateException("expected new chunks to be stored");
                }
            }
            return (System.nanoTime() - start) / 1e6 / n;
        } finally {
            pool.shutdownNow();
        }
    }
}
