package chunkrelay.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/** One chunk archived by several archivers released at the same instant, to see how many of them stored it. */
final class ArchiveRace {
    private ArchiveRace() {
    }

    /**
     * Archives {@code entry} once through each of {@code archives} (the same archive may stand more than once, for
     * threads sharing it), each on a thread of {@code pool} waiting at a barrier so that they all start together.
     *
     * @return how many of them got {@link ArchiveResult#STORED}
     */
    static int stored(ExecutorService pool, List<ChunkArchive> archives, ArchiveEntry entry) throws Exception {
        CyclicBarrier start = new CyclicBarrier(archives.size());
        List<Future<ArchiveResult>> results = new ArrayList<>();
        for (ChunkArchive archive : archives) {
            results.add(pool.submit(() -> {
                start.await();
                return entry.archiveIn(archive);
            }));
        }
        int stored = 0;
        for (Future<ArchiveResult> result : results) {
            stored += result.get() == ArchiveResult.STORED ? 1 : 0;
        }
        return stored;
    }
}
