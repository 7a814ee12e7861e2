package chunkrelay.envelope.views;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.translate.view.ProfileMerger;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import jakarta.inject.Singleton;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Reads the chunks a range's answer needs whole ({@link RangeReader} decides which): a few at a time on a pool shared
 * by every query (reading, decompressing and parsing are most of a chunk's cost), merged in order on the query's
 * thread. One thread per core, so queries cannot multiply threads; {@value #READS_IN_FLIGHT} chunks read ahead per
 * query, what it holds in memory besides the answer.
 */
@Singleton
public class WholeChunkReads {
    private static final int READS_IN_FLIGHT = 4;

    private final ChunkArchive archive;
    private final ExecutorService pool;

    /** One chunk to read whole, and the part of its samples to add. */
    record WholeChunk(ArchiveKey key, long from, long to) {
    }

    /** A chunk's OTLP form parsed, with its object's metadata. */
    private record Parsed(ExportProfilesServiceRequest request, Map<String, String> metadata) {
    }

    public WholeChunkReads(ChunkArchive archive, BackgroundWork work) {
        this.archive = archive;
        int threads = Runtime.getRuntime().availableProcessors();
        this.pool = work.pool("view-chunk-reader", threads, new LinkedBlockingQueue<>());
        work.atStop(BackgroundWork.Stage.READS, "view chunk reads", left -> pool.shutdownNow());
    }

    /** Reads the chunks and merges each one's part in their order; a chunk not derived yet adds nothing. */
    void merge(List<WholeChunk> chunks, ProfileMerger merger) {
        Deque<Future<Optional<Parsed>>> inFlight = new ArrayDeque<>();
        int next = 0;
        while (next < chunks.size() || !inFlight.isEmpty()) {
            while (next < chunks.size() && inFlight.size() < READS_IN_FLIGHT) {
                ArchiveKey key = chunks.get(next++).key();
                inFlight.add(pool.submit(() -> read(key)));
            }
            WholeChunk chunk = chunks.get(next - inFlight.size());
            Optional<Parsed> parsed = await(inFlight.poll());
            parsed.ifPresent(p -> merger.add(p.request(), p.metadata().get(ChunkMetadata.PLATFORM),
                    p.metadata().get(ChunkMetadata.RELEASE), p.metadata().get(ChunkMetadata.ENVIRONMENT),
                    chunk.from(), chunk.to()));
        }
    }

    private Optional<Parsed> read(ArchiveKey key) {
        Optional<ChunkArchive.DerivedForm> form = archive.readDerived(key);
        if (form.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Parsed(ExportProfilesServiceRequest.parseFrom(form.get().otlp()),
                    form.get().metadata()));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("archived OTLP form of " + key.stem() + " does not decode", e);
        }
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading chunks", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
