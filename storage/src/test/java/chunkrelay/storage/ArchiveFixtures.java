package chunkrelay.storage;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Entries made of recorded SDK chunks, and a plain S3 client to look at what the archive wrote (shared with the
 * modules that use this test jar).
 */
public final class ArchiveFixtures {
    static final LocalDate DAY = LocalDate.of(2026, 11, 21);
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private ArchiveFixtures() {
    }

    /** A bucket name no other test uses. */
    static String freshBucket() {
        return "test-" + BUCKETS.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Settings for a fresh bucket on {@code server} with the default deadline (a cold SDK on a loaded 2-core
     * machine takes seconds for its first request) and short backoffs.
     */
    static ArchiveSettings settings(EmbeddedS3Server server) {
        return server.applyTo(ArchiveSettings.defaults())
                .withBucket(freshBucket())
                .withRetry(4, Duration.ofMillis(50))
                .withProbeTimeout(Duration.ofMillis(1000));
    }

    /** Archives one chunk so that the SDK, S3Proxy and zstd are loaded before a test measures time. */
    static void warmUp() {
        try (EmbeddedS3Server server = EmbeddedS3Server.inMemory();
             ChunkArchive archive = new ChunkArchive(settings(server), Clock.systemUTC())) {
            entry(0).archiveIn(archive);
            archive.reachable();
        }
    }

    /** An entry whose Sentry form is a recorded SDK chunk and whose OTLP form is {@code otlpSize} bytes. */
    static ArchiveEntry entry(String project, LocalDate day, int n) {
        RecordedChunk chunk = Fixtures.sdkChunks().get(n % Fixtures.sdkChunks().size());
        byte[] otlp = new byte[4096 + n];
        new Random(n).nextBytes(otlp);
        ArchiveKey key = new ArchiveKey(project, day, "0123456789abcdef0123456789abcdef",
                String.format("%032x", n + 1L));
        return new ArchiveEntry(key, chunk.payload(), otlp, Map.of(
                ChunkMetadata.PLATFORM, chunk.itemHeader().path("platform").asText("unknown"),
                ChunkMetadata.RELEASE, "app@1.2.3",
                ChunkMetadata.SAMPLE_COUNT, "17",
                ChunkMetadata.RELAY_VERSION, "0.1.0-test"));
    }

    static ArchiveEntry entry(int n) {
        return entry("42", DAY, n);
    }

    /** A client of the embedded server as any S3 user has one. */
    public static S3Client rawClient(EmbeddedS3Server server) {
        return S3Client.builder()
                .httpClientBuilder(Apache5HttpClient.builder())
                .endpointOverride(server.endpoint())
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(server.accessKey(), server.secretKey())))
                .build();
    }

    static List<String> keysUnder(S3Client s3, String bucket, String prefix) {
        return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
                .map(S3Object::key).toList();
    }
}
