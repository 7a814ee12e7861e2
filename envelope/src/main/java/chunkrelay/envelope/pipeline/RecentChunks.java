package chunkrelay.envelope.pipeline;

import chunkrelay.envelope.schedule.BackgroundWork;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import jakarta.inject.Singleton;

/**
 * The chunks archived recently, by (project, chunk id): an SDK that retries a chunk whose 200 it missed gets 200
 * again without a second parse-to-archive round. A chunk is remembered only once it is archived, so a chunk
 * whose archiving failed (503) is processed in full when it comes again.
 */
@Singleton
public class RecentChunks {
    private final Cache<Key, Boolean> archived;

    public RecentChunks(DuplicateConfig config) {
        this.archived = Caffeine.newBuilder().executor(BackgroundWork.cacheMaintenance())
                .maximumSize(config.maxChunks())
                .expireAfterWrite(config.expireAfter()).build();
    }

    private record Key(long projectId, String chunkId) {
    }

    boolean wasArchived(long projectId, String chunkId) {
        return archived.getIfPresent(new Key(projectId, chunkId)) != null;
    }

    void archived(long projectId, String chunkId) {
        archived.put(new Key(projectId, chunkId), Boolean.TRUE);
    }
}
