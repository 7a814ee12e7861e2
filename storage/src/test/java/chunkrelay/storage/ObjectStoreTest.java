package chunkrelay.storage;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static chunkrelay.storage.ArchiveFixtures.keysUnder;
import static chunkrelay.storage.ArchiveFixtures.settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The object store against a real S3 server (S3Proxy in memory), one fresh bucket per test: its requests, retries,
 * deadlines, conditional writes and listings. Over the server's HTTP endpoint here, in-process in
 * {@link InProcessObjectStoreTest}.
 */
class ObjectStoreTest {
    /** What a loaded machine may add to a deadline; a call that ignored its deadline would take far longer. */
    private static final Duration SLACK = Duration.ofSeconds(3);

    static EmbeddedS3Server server;
    static S3Client s3;

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

    /** The store under test, on {@code settings}'s bucket and prefix. */
    ObjectStore open(ArchiveSettings settings) {
        return ObjectStore.overHttp(settings, Clock.systemUTC());
    }

    @Test
    void storesReadsListsAndDeletesObjectsBelowThePrefix() {
        ArchiveSettings settings = settings(server).withPrefix("p/");
        Instant before = Instant.now().minusSeconds(2);
        try (ObjectStore store = open(settings)) {
            store.storeObject("spool/b", new byte[] {2});
            store.storeObject("spool/a", new byte[] {1});
            store.storeObject("spool/a", new byte[] {1, 1});
            store.storeObject("other/c", new byte[] {3});

            assertArrayEquals(new byte[] {1, 1}, store.readObject("spool/a").orElseThrow());
            assertEquals(Optional.empty(), store.readObject("spool/missing"));
            assertEquals(List.of("spool/a", "spool/b"), store.listObjects("spool/"));
            Map<String, Instant> written = store.listObjectsWrittenAt("spool/");
            assertEquals(List.of("spool/a", "spool/b"), List.copyOf(written.keySet()));
            assertTrue(written.values().stream().allMatch(at -> at.isAfter(before)), written.toString());

            store.deleteObject("spool/a");
            store.deleteObject("spool/never-stored");
            assertEquals(List.of("spool/b"), store.listObjects("spool/"));
        }
        assertEquals(List.of("p/other/c", "p/spool/b"), keysUnder(s3, settings.bucket(), ""));
    }

    @Test
    void listsTheFoldersOneLevelBelowAPrefix() {
        ArchiveSettings settings = settings(server).withPrefix("p/");
        try (ObjectStore store = open(settings)) {
            store.storeObject("7/2026-11-21/a", new byte[0]);
            store.storeObject("7/2026-11-22/b", new byte[0]);
            store.storeObject("42/2026-11-21/c", new byte[0]);
            store.storeObject("quarantine/42/d", new byte[0]);
            store.storeObject("top-level-object", new byte[0]);

            assertEquals(List.of("42", "7", "quarantine"), store.listFolders(""));
            assertEquals(List.of("2026-11-21", "2026-11-22"), store.listFolders("7/"));
        }
    }

    @Test
    void listsPastOnePageOfTheServersAnswer() {
        ArchiveSettings settings = settings(server);
        try (ObjectStore store = open(settings)) {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 1_005; i++) {
                String key = String.format("many/%04d", i);
                store.storeObject(key, new byte[0]);
                expected.add(key);
            }
            assertEquals(expected, store.listObjects("many/"));
        }
    }

    @Test
    void ofConcurrentConditionalStoresOfOneKeyOnStoresOfTheirOwnExactlyOneCreatesIt() throws Exception {
        ArchiveSettings settings = settings(server).withPrefix("p/");
        int claimers = 6;
        List<ObjectStore> stores = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        try {
            CyclicBarrier start = new CyclicBarrier(claimers);
            List<Future<Boolean>> claims = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                ObjectStore store = open(settings);
                stores.add(store);
                byte[] body = ("claimer " + i).getBytes();
                claims.add(pool.submit(() -> {
                    start.await();
                    return store.storeObjectIfAbsent("leases/one", body);
                }));
            }
            int created = 0;
            for (Future<Boolean> claim : claims) {
                created += claim.get() ? 1 : 0;
            }
            assertEquals(1, created);
            assertFalse(stores.get(0).storeObjectIfAbsent("leases/one", new byte[0]));
            assertTrue(stores.get(0).storeObjectIfAbsent("leases/two", new byte[0]));
            assertEquals(List.of("p/leases/one", "p/leases/two"), keysUnder(s3, settings.bucket(), ""));
        } finally {
            pool.shutdownNow();
            stores.forEach(ObjectStore::close);
        }
    }

    @Test
    void aConditionalStoreLeavesAnObjectOfAnotherWriterAsItIs() {
        ArchiveSettings settings = settings(server);
        try (ObjectStore store = open(settings)) {
            store.storeObject("warm-up", new byte[0]);
            s3.putObject(b -> b.bucket(settings.bucket()).key("claims/x"), RequestBody.fromBytes(new byte[] {9}));

            assertFalse(store.storeObjectIfAbsent("claims/x", new byte[] {1}));
            assertArrayEquals(new byte[] {9}, store.readObject("claims/x").orElseThrow());
        }
    }

    @Test
    void retriesUntilAStoppedServerIsBackWithinTheDeadline() throws Exception {
        ArchiveSettings settings = settings(server).withDeadline(Duration.ofSeconds(20))
                .withRetry(1_000, Duration.ofMillis(50));
        try (ObjectStore store = open(settings)) {
            store.storeObject("before", new byte[0]);
            server.stop();
            Thread restarter = new Thread(() -> {
                try {
                    Thread.sleep(700);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                server.restart();
            });
            restarter.start();
            try {
                assertTrue(store.storeObjectIfAbsent("after", new byte[] {7}));
            } finally {
                restarter.join();
            }
            assertArrayEquals(new byte[] {7}, store.readObject("after").orElseThrow());
        }
    }

    @Test
    void failsWithinTheDeadlineWhileTheServerStaysDownAndServesAgainOnceItIsBack() {
        Duration deadline = Duration.ofMillis(800);
        ArchiveSettings settings = settings(server).withDeadline(deadline).withRetry(1_000, Duration.ofMillis(20));
        try (ObjectStore store = open(settings)) {
            store.storeObject("before", new byte[0]);
            server.stop();
            try {
                long start = System.nanoTime();
                ArchiveUnavailableException e = assertThrows(ArchiveUnavailableException.class,
                        () -> store.storeObjectIfAbsent("during", new byte[0]));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(took.compareTo(deadline.plus(SLACK)) < 0, "took " + took);
                assertTrue(e.getMessage().contains(settings.bucket()), e.getMessage());
                assertThrows(ArchiveUnavailableException.class, () -> store.readObject("before"));
                assertFalse(store.reachable());
            } finally {
                server.restart();
            }
            assertTrue(store.reachable());
            assertEquals(List.of("before"), store.listObjects(""));
        }
    }

    @Test
    void createsAMissingBucketBeforeTheFirstWriteOnlyWhenAllowed() {
        ArchiveSettings creating = settings(server);
        try (ObjectStore store = open(creating)) {
            store.storeObject("first", new byte[0]);
        }
        assertEquals(List.of("first"), keysUnder(s3, creating.bucket(), ""));

        ArchiveSettings refusing = settings(server).withCreateBucketIfMissing(false);
        try (ObjectStore store = open(refusing)) {
            ArchiveUnavailableException e = assertThrows(ArchiveUnavailableException.class,
                    () -> store.storeObject("first", new byte[0]));
            assertTrue(e.getMessage().contains("refused"), e.getMessage());
        }
    }

    @Test
    void aConditionalStoreWhoseAnswerWasLostIsSettledAsOursByItsWriteId() throws Exception {
        try (ResponseDroppingProxy proxy = new ResponseDroppingProxy(server.endpoint(), "/settled/");
             ObjectStore store = ObjectStore.overHttp(settings(server).withEndpoint(proxy.endpoint()),
                     Clock.systemUTC())) {
            store.storeObject("warm-up", new byte[0]);
            // applied by the server, its answer lost: the retry meets 412, and the write id says the object is ours
            assertTrue(store.storeObjectIfAbsent("settled/one", new byte[] {1}));
            assertTrue(proxy.dropped());
            assertFalse(store.storeObjectIfAbsent("settled/one", new byte[] {2}));
        }
    }
}
