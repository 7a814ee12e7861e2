package chunkrelay.envelope.derivation;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.envelope.rollups.OpenMinutes;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.translate.OtlpHeap;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * The chunks waiting for their window, by stem, and the memory they hold: a chunk's prepared form
 * ({@link PreparedChunk}) is kept while the pending chunks stay under {@code relay.links.max-pending-bytes};
 * beyond it only its key waits. Within that, it is kept as its OTLP object while those stay under
 * {@code relay.links.max-pending-object-bytes}, beyond it as compressed bytes. The open minutes of the rollups learn
 * which chunks wait and when they are released.
 */
final class PendingChunks {
    private final LinksConfig config;
    private final OpenMinutes openMinutes;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong pendingBytes = new AtomicLong();
    /** Of {@code pendingBytes}, those of chunks held as OTLP objects. */
    private final AtomicLong objectBytes = new AtomicLong();

    /** A chunk waiting for its window; {@code prepared} is null when it is to be read back from the archive. */
    record Pending(long projectId, ArchiveKey key, PreparedChunk prepared, long bytes,
                   long firstSampleNanos, long lastSampleNanos, ChunkReceipt receipt) {
    }

    PendingChunks(LinksConfig config, OpenMinutes openMinutes, MeterRegistry meters) {
        this.config = config;
        this.openMinutes = openMinutes;
        RelayMeter.DERIVATIONS_PENDING.gauge(meters, pending, Map::size);
        RelayMeter.DERIVATIONS_PENDING_BYTES.gauge(meters, pendingBytes, AtomicLong::get);
    }

    /**
     * Holds a chunk until its window ends: prepared while the budget allows, else by its key only. The open minutes
     * count a prepared chunk from its OTLP object at once, however it then waits.
     *
     * @param prepare given whether an OTLP object of so many heap bytes fits its budget (and reserving them if so),
     *                and where to hand the OTLP object as soon as it is made
     */
    Pending hold(long projectId, ArchiveKey key, ProfileChunk chunk, ChunkReceipt receipt,
                 BiFunction<LongPredicate, Consumer<ExportProfilesServiceRequest>, PreparedChunk> prepare) {
        AtomicReference<ExportProfilesServiceRequest> translated = new AtomicReference<>();
        PreparedChunk prepared = pendingBytes.get() < config.pendingBytesLimit()
                ? prepare.apply(bytes -> reserve(objectBytes, bytes, config.pendingObjectBytesLimit()),
                translated::set) : null;
        long bytes = prepared == null ? 0 : prepared.heapBytes();
        if (prepared != null && !reserve(pendingBytes, bytes, config.pendingBytesLimit())) {
            releaseObject(prepared);
            prepared = null;
            bytes = 0;
        }
        Pending waiting = new Pending(projectId, key, prepared, bytes, chunk.firstSampleNanos(),
                chunk.lastSampleNanos(), receipt);
        pending.put(key.stem(), waiting);
        // a chunk that waits by its key only (past the pending budget) waits uncounted: it has no metadata here
        openMinutes.received(key, chunk.firstSampleNanos(), chunk.lastSampleNanos(),
                prepared == null ? null : translated.get(), prepared == null ? null : prepared.metadata());
        return waiting;
    }

    /** Holds, by its key only, a chunk derived at once: it waits only if its derivation is retried. */
    Pending holdKey(long projectId, ArchiveKey key, ProfileChunk chunk, ChunkReceipt receipt) {
        Pending waiting = new Pending(projectId, key, null, 0, chunk.firstSampleNanos(), chunk.lastSampleNanos(),
                receipt);
        pending.put(key.stem(), waiting);
        return waiting;
    }

    /** Whether this is still the chunk waiting under its stem (not derived, nor replaced by a later receipt). */
    boolean holds(Pending waiting) {
        return pending.get(waiting.key().stem()) == waiting;
    }

    boolean waitsFor(String stem) {
        return pending.containsKey(stem);
    }

    void release(Pending waiting) {
        if (pending.remove(waiting.key().stem(), waiting)) {
            pendingBytes.addAndGet(-waiting.bytes());
            releaseObject(waiting.prepared());
            openMinutes.released(waiting.key(), waiting.firstSampleNanos(), waiting.lastSampleNanos());
        }
    }

    private static boolean reserve(AtomicLong held, long bytes, long limit) {
        if (held.addAndGet(bytes) > limit) {
            held.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    private void releaseObject(PreparedChunk prepared) {
        if (prepared != null && prepared.unlinked() != null) {
            objectBytes.addAndGet(-OtlpHeap.bytes(prepared.unlinked()));
        }
    }

    List<Pending> all() {
        return new ArrayList<>(pending.values());
    }

    int size() {
        return pending.size();
    }
}
