package chunkrelay.storage;

import com.github.luben.zstd.ZstdInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

import static chunkrelay.storage.ArchiveFixtures.DAY;
import static chunkrelay.storage.ArchiveFixtures.entry;
import static chunkrelay.storage.ArchiveFixtures.keysUnder;
import static chunkrelay.storage.ArchiveFixtures.settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The archive against a real S3 server (S3Proxy in memory), one fresh bucket per test; over its HTTP endpoint here,
 * in-process in {@link InProcessChunkArchiveTest}.
 */
class ChunkArchiveTest {
    static EmbeddedS3Server server;
    private static S3Client s3;

    @BeforeAll
    static void startServer() {
        ArchiveFixtures.warmUp();
        server = EmbeddedS3Server.inMemory();
        s3 = ArchiveFixtures.rawClient(server);
    }

    @AfterAll
    static void stopServer() {
        s3.close();
        server.close();
    }

    /** The archive under test, on {@code settings}'s bucket and prefix. */
    ChunkArchive open(ArchiveSettings settings) {
        return new ChunkArchive(settings, Clock.systemUTC());
    }

    @Test
    void storesBothFormsZstdCompressedWithContentHeadersAndMetadata() throws IOException {
        ArchiveSettings settings = settings(server).withPrefix("archive/");
        ArchiveEntry entry = entry(0);
        try (ChunkArchive archive = open(settings)) {
            assertEquals(ArchiveResult.STORED, entry.archiveIn(archive));
        }
        String stem = "archive/42/2026-11-21/0123456789abcdef0123456789abcdef/" + String.format("%032x", 1);
        assertEquals(List.of(stem + ".otlp.binpb.zst", stem + ".sentry.json.zst"),
                keysUnder(s3, settings.bucket(), "archive/"));

        ResponseBytes<GetObjectResponse> sentry = get(settings.bucket(), stem + ".sentry.json.zst");
        assertArrayEquals(entry.sentryPayload(), unzstd(sentry.asByteArray()));
        assertEquals("application/json", sentry.response().contentType());
        assertEquals("zstd", sentry.response().contentEncoding());
        ResponseBytes<GetObjectResponse> otlp = get(settings.bucket(), stem + ".otlp.binpb.zst");
        assertArrayEquals(entry.otlpPayload(), unzstd(otlp.asByteArray()));
        assertEquals("application/x-protobuf", otlp.response().contentType());
        assertEquals("zstd", otlp.response().contentEncoding());

        for (String key : List.of(stem + ".sentry.json.zst", stem + ".otlp.binpb.zst")) {
            Map<String, String> metadata = s3.headObject(b -> b.bucket(settings.bucket()).key(key)).metadata();
            assertEquals("42", metadata.get("project"));
            assertEquals("0123456789abcdef0123456789abcdef", metadata.get("profiler-id"));
            assertEquals(String.format("%032x", 1), metadata.get("chunk-id"));
            assertEquals("app@1.2.3", metadata.get("release"));
            assertEquals("17", metadata.get("sample-count"));
            assertEquals("0.1.0-test", metadata.get("relay-version"));
            assertEquals(entry.metadata().get("platform"), metadata.get("platform"));
        }
    }

    @Test
    void gzipIsSelectable() throws IOException {
        ArchiveSettings settings = settings(server).withCompression(ArchiveCompression.fromName("gzip"));
        ArchiveEntry entry = entry(1);
        try (ChunkArchive archive = open(settings)) {
            assertEquals(ArchiveResult.STORED, entry.archiveIn(archive));
        }
        String stem = entry.key().stem();
        assertEquals(List.of(stem + ".otlp.binpb.gz", stem + ".sentry.json.gz"), keysUnder(s3, settings.bucket(), ""));
        ResponseBytes<GetObjectResponse> sentry = get(settings.bucket(), stem + ".sentry.json.gz");
        assertEquals("gzip", sentry.response().contentEncoding());
        assertArrayEquals(entry.sentryPayload(), gunzip(sentry.asByteArray()));
        assertArrayEquals(entry.otlpPayload(), gunzip(get(settings.bucket(), stem + ".otlp.binpb.gz").asByteArray()));
    }

    @Test
    void archivingTheSameChunkAgainIsADuplicateAndWritesNothing() {
        ArchiveSettings settings = settings(server);
        ArchiveEntry entry = entry(2);
        HeadObjectResponse before;
        try (ChunkArchive archive = open(settings)) {
            assertEquals(ArchiveResult.STORED, entry.archiveIn(archive));
            before = head(settings.bucket(), entry.key().stem() + ".otlp.binpb.zst");
            assertEquals(ArchiveResult.DUPLICATE, entry.archiveIn(archive));
        }
        // a second relay (empty cache) learns it from S3's 412
        try (ChunkArchive other = open(settings)) {
            assertEquals(ArchiveResult.DUPLICATE, entry.archiveIn(other));
        }
        assertEquals(2, keysUnder(s3, settings.bucket(), "").size());
        HeadObjectResponse after = head(settings.bucket(), entry.key().stem() + ".otlp.binpb.zst");
        assertEquals(before.metadata().get("write-id"), after.metadata().get("write-id"));
        assertEquals(before.eTag(), after.eTag());
    }

    @Test
    void eightConcurrentArchiversOfOneChunkStoreItExactlyOnce() throws Exception {
        ArchiveSettings settings = settings(server);
        int archivers = 8;
        List<ChunkArchive> relays = new ArrayList<>();
        for (int i = 0; i < archivers; i++) {
            relays.add(open(settings));
        }
        ExecutorService pool = Executors.newFixedThreadPool(archivers);
        try {
            for (int round = 0; round < 10; round++) {
                ArchiveEntry entry = entry(100 + round);
                assertEquals(1, ArchiveRace.stored(pool, relays, entry), "round " + round);
                String stem = entry.key().stem();
                assertEquals(List.of(stem + ".otlp.binpb.zst", stem + ".sentry.json.zst"),
                        keysUnder(s3, settings.bucket(), stem));
                assertArrayEquals(entry.sentryPayload(),
                        unzstd(get(settings.bucket(), stem + ".sentry.json.zst").asByteArray()));
                assertArrayEquals(entry.otlpPayload(),
                        unzstd(get(settings.bucket(), stem + ".otlp.binpb.zst").asByteArray()));
            }
        } finally {
            pool.shutdownNow();
            relays.forEach(ChunkArchive::close);
        }
    }

    @Test
    void eightThreadsSharingOneArchiveStoreAChunkExactlyOnce() throws Exception {
        ArchiveSettings settings = settings(server);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (ChunkArchive archive = open(settings)) {
            ArchiveEntry entry = entry(200);
            assertEquals(1, ArchiveRace.stored(pool, Collections.nCopies(8, archive), entry));
            assertEquals(2, keysUnder(s3, settings.bucket(), "").size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void createsTheBucketIfMissing() {
        ArchiveSettings settings = settings(server);
        assertThrows(NoSuchBucketException.class, () -> s3.headBucket(b -> b.bucket(settings.bucket())));
        try (ChunkArchive archive = open(settings)) {
            assertEquals(ArchiveResult.STORED, entry(3).archiveIn(archive));
        }
        s3.headBucket(b -> b.bucket(settings.bucket()));
        assertEquals(2, keysUnder(s3, settings.bucket(), "").size());
    }

    @Test
    void aMissingBucketIsRefusedWhenCreationIsOff() {
        ArchiveSettings settings = settings(server).withCreateBucketIfMissing(false);
        try (ChunkArchive archive = open(settings)) {
            ArchiveUnavailableException e = assertThrows(ArchiveUnavailableException.class,
                    () -> entry(4).archiveIn(archive));
            assertTrue(e.getMessage().contains(settings.bucket()), e.getMessage());
            assertFalse(archive.reachable());
        }
        assertThrows(NoSuchBucketException.class, () -> s3.headBucket(b -> b.bucket(settings.bucket())));
    }

    @Test
    void listsArchivedChunksOfAProjectWithinADateRange() {
        ArchiveSettings settings = settings(server).withPrefix("p/");
        try (ChunkArchive archive = open(settings)) {
            List<ArchiveKey> expected = new ArrayList<>();
            for (int d = 0; d < 4; d++) {
                ArchiveEntry mine = entry("42", DAY.plusDays(d), 10 + d);
                mine.archiveIn(archive);
                if (d >= 1 && d <= 2) {
                    expected.add(mine.key());
                }
                entry("7", DAY.plusDays(d), 20 + d).archiveIn(archive);
            }
            ArchiveEntry second = entry("42", DAY.plusDays(1), 30);
            second.archiveIn(archive);
            expected.add(1, second.key());
            // a Sentry object without its OTLP completion marker is not an archived chunk
            s3.putObject(b -> b.bucket(settings.bucket())
                            .key("p/42/" + DAY.plusDays(2) + "/0123456789abcdef0123456789abcdef/ff.sentry.json.zst"),
                    RequestBody.fromString("{}"));

            List<ArchivedChunk> listed = archive.list("42", DAY.plusDays(1), DAY.plusDays(2));
            assertEquals(expected, listed.stream().map(ArchivedChunk::key).toList());
            for (ArchivedChunk chunk : listed) {
                assertEquals("p/" + chunk.key().stem() + ".otlp.binpb.zst", chunk.otlpObjectKey());
                assertEquals("p/" + chunk.key().stem() + ".sentry.json.zst", chunk.sentryObjectKey());
                assertFalse(chunk.delivered());
                assertFalse(chunk.markedForReplay());
            }
            assertEquals(List.of(), archive.list("42", DAY.minusDays(3), DAY.minusDays(1)));
        }
    }

    @Test
    void readsBackBothFormsOfAListedChunk() {
        ArchiveSettings settings = settings(server);
        ArchiveEntry entry = entry(5);
        try (ChunkArchive archive = open(settings)) {
            entry.archiveIn(archive);
            ArchivedChunk chunk = archive.list("42", DAY, DAY).get(0);
            assertArrayEquals(entry.otlpPayload(), archive.readOtlp(chunk));
            assertArrayEquals(entry.sentryPayload(), archive.readSentry(chunk));
        }
    }

    @Test
    void refusalMarkerReplacesTheReplayMarkerAndKeepsTheReason() {
        ArchiveSettings settings = settings(server);
        ArchiveEntry entry = entry(8);
        ArchiveEntry other = entry(9);
        try (ChunkArchive archive = open(settings)) {
            entry.archiveIn(archive);
            other.archiveIn(archive);
            archive.markForReplay(entry.key(), "HTTP 503");
            assertEquals(Optional.empty(), archive.refusal(entry.key()));

            archive.markRefused(entry.key(), "HTTP 400: profile too old");

            assertFalse(archive.isMarkedForReplay(entry.key()));
            assertTrue(archive.refusal(entry.key()).orElseThrow().endsWith(" HTTP 400: profile too old"));
            List<ArchivedChunk> listed = archive.list("42", DAY, DAY);
            assertEquals(List.of(true, false), listed.stream().map(ArchivedChunk::refused).toList());
            assertEquals(List.of(false, false), listed.stream().map(ArchivedChunk::delivered).toList());
        }
    }

    @Test
    void deliveryMarkerReplacesTheReplayMarker() {
        ArchiveSettings settings = settings(server);
        ArchiveEntry entry = entry(6);
        ArchiveEntry other = entry(7);
        try (ChunkArchive archive = open(settings)) {
            entry.archiveIn(archive);
            other.archiveIn(archive);
            assertFalse(archive.isDelivered(entry.key()));
            archive.markForReplay(entry.key(), "queue full");
            assertTrue(archive.isMarkedForReplay(entry.key()));
            List<ArchivedChunk> listed = archive.list("42", DAY, DAY);
            assertEquals(List.of(true, false), listed.stream().map(ArchivedChunk::markedForReplay).toList());

            archive.markDelivered(entry.key());
            assertTrue(archive.isDelivered(entry.key()));
            assertFalse(archive.isMarkedForReplay(entry.key()));
            assertFalse(archive.isDelivered(other.key()));
            listed = archive.list("42", DAY, DAY);
            assertEquals(List.of(true, false), listed.stream().map(ArchivedChunk::delivered).toList());
            assertEquals(List.of(false, false), listed.stream().map(ArchivedChunk::markedForReplay).toList());
        }
        String stem = entry.key().stem();
        assertEquals(List.of(stem + ".delivered", stem + ".otlp.binpb.zst", stem + ".sentry.json.zst"),
                keysUnder(s3, settings.bucket(), stem));
    }

    @Test
    void nonAsciiMetadataIsPercentEncoded() {
        ArchiveSettings settings = settings(server);
        ArchiveEntry base = entry(8);
        ArchiveEntry entry = new ArchiveEntry(base.key(), base.sentryPayload(), base.otlpPayload(),
                Map.of(ChunkMetadata.RELEASE, "café@1.0 100%"));
        try (ChunkArchive archive = open(settings)) {
            entry.archiveIn(archive);
        }
        assertEquals("caf%C3%A9@1.0 100%25",
                head(settings.bucket(), entry.key().stem() + ".otlp.binpb.zst").metadata().get("release"));
    }

    @Test
    void wrongCredentialsAreRefusedWithoutRetrying() {
        ArchiveSettings settings = settings(server).withCredentials(server.accessKey(), "not-the-secret")
                .withDeadline(java.time.Duration.ofSeconds(30)).withRetry(4, java.time.Duration.ofMillis(10));
        try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
            ArchiveUnavailableException e = assertThrows(ArchiveUnavailableException.class,
                    () -> entry(9).archiveIn(archive));
            assertTrue(e.getCause() instanceof S3Exception s3e && s3e.statusCode() == 403, String.valueOf(e.getCause()));
            // the refusal is final after one attempt: retried, it would say "failed 4 times"
            assertTrue(e.getMessage().contains("refused"), e.getMessage());
        }
    }

    @Test
    void longMetadataValuesAreCappedWithoutSplittingAnEscape() {
        String capped = ObjectHeaders.safeValue("a".repeat(254) + "é");
        assertEquals("a".repeat(254), capped);
        assertEquals(256, ObjectHeaders.safeValue("b".repeat(1000)).length());
    }

    private static ResponseBytes<GetObjectResponse> get(String bucket, String key) {
        return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
    }

    private static HeadObjectResponse head(String bucket, String key) {
        return s3.headObject(b -> b.bucket(bucket).key(key));
    }

    static byte[] unzstd(byte[] data) throws IOException {
        try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(data))) {
            return in.readAllBytes();
        }
    }

    private static byte[] gunzip(byte[] data) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
            return in.readAllBytes();
        }
    }
}
