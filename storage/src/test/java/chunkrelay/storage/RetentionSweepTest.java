package chunkrelay.storage;

import chunkrelay.retry.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The retention sweep on a real S3 server (S3Proxy in memory), with time moved by a test clock that starts at the
 * real time, so that the bucket's write times and the clock agree.
 */
@ExtendWith(InMemoryS3.class)
class RetentionSweepTest {
    private static final Duration RETENTION = Duration.ofDays(30);
    private static final LocalDate TODAY = LocalDate.now(ZoneOffset.UTC);
    /** Past the retention by its day once the clock is a month on; a day ahead of the clock stays. */
    private static final LocalDate OLD = TODAY.minusDays(10);
    private static final LocalDate YOUNG = TODAY.plusDays(25);

    private final TestClock clock = new TestClock(Instant.now());
    private final AtomicLong deletedObjects = new AtomicLong();
    private final AtomicLong deletedBytes = new AtomicLong();
    private ObjectStore store;
    private ChunkArchive archive;

    @BeforeEach
    void openStore(ObjectStore store) {
        this.store = store;
        archive = new ChunkArchive(store);
    }

    private RetentionSweep sweep(Map<String, Duration> overrides, RetentionSweep.Deletions deletions) {
        return new RetentionSweep(store, new RetentionSweep.Rules(p -> overrides.getOrDefault(p, RETENTION),
                RETENTION, Duration.ofDays(2), Duration.ofDays(7)),
                clock, deletions);
    }

    private RetentionSweep sweep(Map<String, Duration> overrides) {
        return sweep(overrides, (project, bytes) -> {
            deletedObjects.incrementAndGet();
            deletedBytes.addAndGet(bytes);
        });
    }

    /** A chunk with both forms and both markers, and something in every other per-day folder of its day. */
    private ArchiveEntry archiveDay(String project, LocalDate day, int n) {
        ArchiveEntry entry = ArchiveFixtures.entry(project, day, n);
        entry.archiveIn(archive);
        archive.markForReplay(entry.key(), "test");
        archive.markDelivered(entry.key());
        archive.markForReplay(entry.key(), "again");
        for (String folder : List.of("index/", "rollups/", "late/", "health/")) {
            store.storeObject(folder + project + "/" + day + "/part-" + n, new byte[] {1, 2, 3});
        }
        archive.quarantine(project, entry.key().chunkId(), new byte[] {'{', '}'}, "test");
        return entry;
    }

    private List<String> keys(String prefix) {
        return store.listObjects(prefix);
    }

    @Test
    void aDayPastTheRetentionLosesEveryObjectOfItsOwnAndYoungerDaysKeepTheirs() {
        ArchiveEntry old = archiveDay("1", OLD, 1);
        ArchiveEntry young = archiveDay("1", YOUNG, 2);
        // quarantine files by today's date: move the old chunk's copy to its day, as a quarantine of that day would be
        for (String key : keys("quarantine/1/" + TODAY + "/")) {
            store.storeObject(key.replace(TODAY.toString(), OLD.toString()), new byte[] {1});
            store.deleteObject(key);
        }
        store.storeObject("quarantine/1/" + YOUNG + "/kept.sentry.json.zst", new byte[] {1});
        long before = keys("").size();

        clock.advance(RETENTION.plusDays(1));
        Map<String, RetentionSweep.Size> kept = sweep(Map.of()).sweep();

        for (String folder : ArchiveLayout.PROJECT_DAY_FOLDERS) {
            assertEquals(List.of(), keys(folder + "1/" + OLD + "/"), folder + " of the old day");
            assertFalse(keys(folder + "1/" + YOUNG + "/").isEmpty(), folder + " of the young day");
        }
        assertEquals(List.of(young.key()), archive.list("1", OLD, YOUNG).stream().map(ArchivedChunk::key).toList());
        assertTrue(archive.isDelivered(young.key()));
        assertFalse(archive.isDelivered(old.key()));
        long left = keys("").size();
        assertEquals(before - left, deletedObjects.get());
        assertEquals(left, kept.get("1").objects(), "every object left is the project's");
        assertTrue(deletedBytes.get() > old.sentryPayload().length / 20, "compressed bytes counted");
    }

    @Test
    void aMinutesPerSecondDetailGoesAfterItsWeekWhileTheMinutesRollupStays() {
        LocalDate tenDaysAgo = OLD;
        LocalDate twoDaysAgo = TODAY.minusDays(2);
        for (LocalDate day : List.of(tenDaysAgo, twoDaysAgo)) {
            store.storeObject("rollups/1/" + day + "/m1200.3", new byte[] {1});
            store.storeObject("rollups/1/" + day + "/s1200.3", new byte[] {1});
            store.storeObject("rollups/1/" + day + "/s1200.2", new byte[] {1});
            store.storeObject("rollups/1/" + day + "/h12.3", new byte[] {1});
        }
        sweep(Map.of()).sweep();
        assertEquals(List.of("rollups/1/" + tenDaysAgo + "/h12.3", "rollups/1/" + tenDaysAgo + "/m1200.3"),
                keys("rollups/1/" + tenDaysAgo + "/"), "a day older than a week keeps its rollups, not its details");
        assertEquals(4, keys("rollups/1/" + twoDaysAgo + "/").size(), "a day within the week keeps everything");
        assertEquals(2, deletedObjects.get());
    }

    @Test
    void aProjectsOwnRetentionIsHonoured() {
        archiveDay("1", OLD, 1);
        ArchiveEntry longer = archiveDay("3", OLD, 2);
        ArchiveEntry forever = archiveDay("4", OLD, 3);

        clock.advance(RETENTION.plusDays(1));
        sweep(Map.of("3", Duration.ofDays(60), "4", Duration.ZERO)).sweep();

        assertEquals(List.of(), archive.list("1", OLD, OLD));
        assertEquals(List.of(longer.key()), archive.list("3", OLD, OLD).stream().map(ArchivedChunk::key).toList());
        assertEquals(List.of(forever.key()), archive.list("4", OLD, OLD).stream().map(ArchivedChunk::key).toList());

        clock.advance(Duration.ofDays(60));
        sweep(Map.of("3", Duration.ofDays(60), "4", Duration.ZERO)).sweep();
        assertEquals(List.of(), archive.list("3", OLD, OLD));
        assertEquals(1, archive.list("4", OLD, OLD).size(), "zero keeps forever");
    }

    @Test
    void anObjectWrittenWithinTheRetentionStaysThoughItsDayIsPast() {
        LocalDate longAgo = TODAY.minusDays(90);
        ArchiveEntry late = archiveDay("1", longAgo, 1);

        clock.advance(RETENTION.minusDays(1));
        sweep(Map.of()).sweep();
        assertEquals(List.of(late.key()), archive.list("1", longAgo, longAgo).stream().map(ArchivedChunk::key).toList(),
                "uploaded late for an old day: kept for the retention from its upload");
        assertEquals(0, deletedObjects.get());

        clock.advance(Duration.ofDays(2));
        sweep(Map.of()).sweep();
        assertEquals(List.of(), keys("1/"));
    }

    @Test
    void aSweepCutOffAfterAnyDeletionLeavesOnlyWholeChunksListed() {
        for (int n = 0; n < 3; n++) {
            archiveDay("1", OLD, n);
        }
        clock.advance(RETENTION.plusDays(1));
        int total = keys("").size();

        for (int cutAfter = 1; cutAfter < total; cutAfter++) {
            AtomicInteger deletions = new AtomicInteger();
            int limit = cutAfter;
            RetentionSweep cut = sweep(Map.of(), (project, bytes) -> {
                if (deletions.incrementAndGet() == limit) {
                    throw new ArchiveUnavailableException("cut off", null);
                }
            });
            assertThrows(ArchiveUnavailableException.class, cut::sweep);
            for (ArchivedChunk listed : archive.list("1", OLD, OLD)) {
                assertNotNull(listed.sentryObjectKey(), "listed without its Sentry form after " + limit);
                assertTrue(archive.readOtlp(listed).length > 0);
                assertTrue(archive.readSentry(listed).length > 0);
            }
            // put back what the cut sweep deleted, for the next cut
            for (int n = 0; n < 3; n++) {
                archiveDay("1", OLD, n);
            }
            clock.advance(RETENTION.plusDays(1));
        }

        sweep(Map.of()).sweep();
        assertEquals(List.of(), keys(""), "a whole sweep finishes what cut ones began");
    }

    @Test
    void theSpanLogGoesAfterItsUseAndTheSpoolAfterTheRelaysRetention() {
        String spans = "spans/1/0123456789abcdef0123456789abcdef/";
        store.storeObject(spans + TODAY + "/1200/r1/a.jsonl", new byte[] {1});
        store.storeObject(spans + TODAY.plusDays(5) + "/1200/r1/b.jsonl", new byte[] {1});
        store.storeObject("upstream-spool/00000000001-x", new byte[] {1});
        store.storeObject("upstream-spool-claims/00000000001-x.7", new byte[] {1});
        store.storeObject("derivers/abc", new byte[] {1});
        store.storeObject("notaproject/" + OLD + "/x", new byte[] {1});

        clock.advance(Duration.ofDays(3));
        sweep(Map.of()).sweep();
        assertEquals(List.of(spans + TODAY.plusDays(5) + "/1200/r1/b.jsonl"), keys("spans/"),
                "a day of spans goes two days after it ends, a later day stays");
        assertEquals(2, keys("upstream-spool").size(), "the spool stays within the relay's retention");

        clock.advance(RETENTION);
        sweep(Map.of()).sweep();
        assertEquals(List.of("derivers/abc", "notaproject/" + OLD + "/x"), keys(""),
                "the spool and its claims gone after the retention; what is no project's day is left alone");
    }

    @Test
    void theSizeOfWhatAProjectKeepsIsCountedEveryPass() {
        archiveDay("1", YOUNG, 1);
        archiveDay("1", TODAY.minusDays(5), 2);
        archiveDay("2", YOUNG, 3);
        long bytes = store.list("1/").stream().mapToLong(o -> o.size()).sum()
                + store.list("quarantine/1/").stream().mapToLong(o -> o.size()).sum()
                + 4 * 2 * 3;
        RetentionSweep sweep = sweep(Map.of());

        Map<String, RetentionSweep.Size> first = sweep.sweep();
        Map<String, RetentionSweep.Size> second = sweep.sweep();

        assertEquals(keys("").size() - first.get("2").objects(), first.get("1").objects());
        assertEquals(bytes, first.get("1").bytes());
        assertEquals(first, second, "days before yesterday are remembered, the others listed again");

        // a late upload to a day before yesterday shows within a day
        ArchiveFixtures.entry("1", TODAY.minusDays(5), 4).archiveIn(archive);
        assertEquals(first, sweep.sweep(), "remembered");
        clock.advance(RetentionSweep.RELIST_SETTLED);
        assertEquals(first.get("1").objects() + 2, sweep.sweep().get("1").objects(), "listed again after a day");
    }
}
