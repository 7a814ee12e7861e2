package chunkrelay.storage;

import chunkrelay.chunk.testing.Await;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static chunkrelay.storage.ArchiveFixtures.entry;
import static chunkrelay.storage.ArchiveFixtures.keysUnder;
import static chunkrelay.storage.ArchiveFixtures.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The archive while its S3 server is down, hanging or refusing: each test runs its own server. */
class ArchiveOutageTest {
    private static final Duration DEADLINE = Duration.ofSeconds(2);
    /** What a loaded machine may add to a deadline; a call that ignored its deadline would hang far longer. */
    private static final Duration SLACK = Duration.ofSeconds(3);

    @BeforeAll
    static void loadEverythingFirst() {
        ArchiveFixtures.warmUp();
    }

    @Test
    void stoppedServerFailsWithinTheDeadlineAndTheChunkIsArchivedOnceAfterItReturns() {
        try (EmbeddedS3Server server = EmbeddedS3Server.inMemory();
             S3Client s3 = ArchiveFixtures.rawClient(server)) {
            ArchiveSettings settings = settings(server).withDeadline(DEADLINE);
            try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
                assertEquals(ArchiveResult.STORED, entry(1).archiveIn(archive));
                int port = server.port();
                server.stop();

                long start = System.nanoTime();
                assertThrows(ArchiveUnavailableException.class, () -> entry(2).archiveIn(archive));
                Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(elapsed.compareTo(settings.deadline().plus(SLACK)) < 0, "took " + elapsed);
                assertFalse(archive.reachable());

                server.restart();
                assertEquals(port, server.port());
                assertTrue(archive.reachable());
                assertEquals(List.of(), keysUnder(s3, settings.bucket(), entry(2).key().stem()));
                assertEquals(ArchiveResult.STORED, entry(2).archiveIn(archive));
                assertEquals(ArchiveResult.DUPLICATE, entry(2).archiveIn(archive));
            }
            try (ChunkArchive restartedRelay = new ChunkArchive(settings, Clock.systemUTC())) {
                assertEquals(ArchiveResult.DUPLICATE, entry(2).archiveIn(restartedRelay));
            }
            assertEquals(4, keysUnder(s3, settings.bucket(), "").size());
        }
    }

    @Test
    void hangingServerFailsWithinTheDeadline() throws Exception {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            ArchiveSettings settings = ArchiveSettings.defaults()
                    .withEndpoint(URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                    .withPathStyle(true).withCredentials("key", "secret")
                    .withDeadline(Duration.ofMillis(1200)).withRetry(3, Duration.ofMillis(50))
                    .withProbeTimeout(Duration.ofMillis(300));
            try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
                long start = System.nanoTime();
                assertThrows(ArchiveUnavailableException.class, () -> entry(1).archiveIn(archive));
                Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(elapsed.compareTo(settings.deadline().plus(SLACK)) < 0, "took " + elapsed);
                assertTrue(elapsed.compareTo(Duration.ofMillis(300)) > 0, "gave up after " + elapsed);

                start = System.nanoTime();
                assertFalse(archive.reachable());
                elapsed = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(elapsed.compareTo(settings.probeTimeout().plus(SLACK)) < 0, "probe took " + elapsed);
            }
        } finally {
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    @Test
    void reachableFollowsTheServer() {
        try (EmbeddedS3Server server = EmbeddedS3Server.inMemory();
             ChunkArchive archive = new ChunkArchive(settings(server), Clock.systemUTC())) {
            assertTrue(archive.reachable());
            server.stop();
            assertFalse(archive.reachable());
            server.restart();
            assertTrue(archive.reachable());
        }
    }

    @Test
    void aRefusedOtlpWriteLeavesTheChunkArchivedAndUnderived() throws Exception {
        // A real S3 server that refuses objects over 2 KiB: the small Sentry object passes, the OTLP one
        // (4 KiB of incompressible bytes) is refused after it.
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(BlobStores.create("transient", new Properties()))
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "key", "secret")
                .maxSinglePartObjectSize(2048)
                .build();
        proxy.start();
        Await.until("S3Proxy to start", Duration.ofSeconds(30), () -> "STARTED".equals(proxy.getState()));
        try {
            ArchiveSettings settings = ArchiveSettings.defaults()
                    .withEndpoint(URI.create("http://127.0.0.1:" + proxy.getPort()))
                    .withPathStyle(true).withCredentials("key", "secret").withBucket("refusing");
            ArchiveEntry entry = new ArchiveEntry(entry(1).key(), "{\"small\":true}".getBytes(),
                    entry(1).otlpPayload(), entry(1).metadata());
            try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
                assertThrows(ArchiveUnavailableException.class, () -> entry.archiveIn(archive));
                // archived: the Sentry form is kept, and a later derivation finds it underived
                assertEquals(List.of(), archive.list("42", entry.key().day(), entry.key().day()));
                assertEquals(List.of(entry.key()), archive.listUnderived("42", entry.key().day()).stream()
                        .map(UnderivedChunk::key).toList());
            }
            try (S3Client s3 = S3Client.builder()
                    .httpClientBuilder(software.amazon.awssdk.http.apache5.Apache5HttpClient.builder())
                    .endpointOverride(settings.endpoint()).forcePathStyle(true)
                    .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                    .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("key", "secret")))
                    .build()) {
                assertEquals(List.of(entry.key().stem() + ".sentry.json.zst"), keysUnder(s3, "refusing", ""));
            }
        } finally {
            proxy.stop();
        }
    }

    @Test
    void aLostResponseToTheOtlpWriteIsSettledByItsWriteId() throws Exception {
        try (EmbeddedS3Server server = EmbeddedS3Server.inMemory();
             ResponseDroppingProxy proxy = new ResponseDroppingProxy(server.endpoint(), "PUT /lossy/42/");
             S3Client s3 = ArchiveFixtures.rawClient(server)) {
            ArchiveSettings settings = settings(server).withBucket("lossy").withEndpoint(proxy.endpoint());
            s3.createBucket(b -> b.bucket("lossy"));
            ArchiveEntry entry = entry(1);
            try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
                // the Sentry write is applied but its answer lost; the retry sees 412 and the write id says
                // the object is ours
                assertEquals(ArchiveResult.STORED, entry.archiveIn(archive));
            }
            assertTrue(proxy.dropped());
            assertEquals(2, keysUnder(s3, "lossy", "").size());
        }
        try (EmbeddedS3Server server = EmbeddedS3Server.inMemory();
             ResponseDroppingProxy proxy = new ResponseDroppingProxy(server.endpoint(), ".otlp.binpb.zst");
             S3Client s3 = ArchiveFixtures.rawClient(server)) {
            ArchiveSettings settings = settings(server).withBucket("lossy").withEndpoint(proxy.endpoint());
            s3.createBucket(b -> b.bucket("lossy"));
            try (ChunkArchive archive = new ChunkArchive(settings, Clock.systemUTC())) {
                // without the write id this 412 would read as somebody else's chunk: DUPLICATE
                assertEquals(ArchiveResult.STORED, entry(1).archiveIn(archive));
            }
            assertTrue(proxy.dropped());
            assertEquals(2, keysUnder(s3, "lossy", "").size());
        }
    }
}
