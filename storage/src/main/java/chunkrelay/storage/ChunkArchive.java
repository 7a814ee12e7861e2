package chunkrelay.storage;

import software.amazon.awssdk.services.s3.model.S3Object;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The archive of accepted chunks on an {@link ObjectStore}: both forms of each chunk under one stem
 * {@code {project}/{yyyy-mm-dd}/{profiler}/{chunk}}, plus small delivery, replay and refusal markers, and payloads the relay
 * failed on under {@code quarantine/}.
 *
 * <p>One protocol: a chunk is archived once its Sentry object exists ({@link #archiveSentryForm}, before the SDK's
 * 200), and its OTLP object is derived from it afterwards ({@link #storeDerivedOtlp}), whether after a link window,
 * at once, by a recovery pass or by replay. Both writes are conditional, so that concurrent archivers of one chunk
 * (threads or relays) converge: whoever creates an object wrote it, everyone else is answered
 * {@link ArchiveResult#DUPLICATE}, and only the creator of the OTLP object forwards it. Listings of chunks show the
 * derived ones; {@link #listUnderived} the others. Objects are compressed deterministically, so a retry writes the
 * same bytes. Thread-safe; one instance per bucket.
 */
public final class ChunkArchive implements AutoCloseable {

    static final String SENTRY_SUFFIX = ".sentry.json";
    /** Where payloads the relay failed on are kept, beside (not under) the projects' chunks. */
    static final String OTLP_SUFFIX = ".otlp.binpb";
    static final String DELIVERED_SUFFIX = ".delivered";
    static final String REPLAY_SUFFIX = ".replay";
    static final String REFUSED_SUFFIX = ".refused";
    private static final String JSON = "application/json";
    private static final String PROTOBUF = "application/x-protobuf";
    private static final String MARKER = "text/plain; charset=utf-8";


    private final ObjectStore store;
    private final boolean ownsStore;
    private final ArchiveSettings settings;

    /** The archive on a store of its own over HTTP, closed with it; dated and with deadlines on {@code clock}. */
    public ChunkArchive(ArchiveSettings settings, Clock clock) {
        this(ObjectStore.overHttp(settings, clock), true);
    }

    /** The archive on a store others share: closing the archive leaves the store open. */
    public ChunkArchive(ObjectStore store) {
        this(store, false);
    }

    private ChunkArchive(ObjectStore store, boolean ownsStore) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.settings = store.settings();
    }

    /** The archive on a store of its own in an embedded server, reached in-process ({@link ObjectStore#inProcess}). */
    public static ChunkArchive inProcess(EmbeddedS3Server server, ArchiveSettings settings, Clock clock) {
        return new ChunkArchive(ObjectStore.inProcess(server, settings, clock), true);
    }

    public ArchiveSettings settings() {
        return settings;
    }

    /** The store this archive keeps its chunks in. */
    public ObjectStore store() {
        return store;
    }

    /**
     * Archives the Sentry form of a chunk: the chunk is safe once this returns, and its OTLP form is derived from it
     * ({@link #storeDerivedOtlp}). {@link ArchiveResult#DUPLICATE} when the Sentry object already existed.
     *
     * @param metadata the objects' user metadata by name ({@link ChunkMetadata}); project, profiler id and chunk id
     *                 are added from the key
     * @throws ArchiveUnavailableException when the bucket could not be written within the deadline
     */
    public ArchiveResult archiveSentryForm(ArchiveKey key, byte[] sentryPayload, Map<String, String> metadata) {
        boolean created = store.putIfAbsent(key.stem() + SENTRY_SUFFIX + compression().suffix(), compress(sentryPayload),
                headers(JSON, key, metadata), store.requests().deadline());
        return created ? ArchiveResult.STORED : ArchiveResult.DUPLICATE;
    }

    /**
     * Writes the OTLP form derived from an archived Sentry form, once: {@link ArchiveResult#DUPLICATE} when it
     * exists already (another replica or an earlier attempt derived it), so that only one writer forwards it.
     *
     * @throws ArchiveUnavailableException when the bucket could not be written within the deadline
     */
    public ArchiveResult storeDerivedOtlp(ArchiveKey key, byte[] otlpPayload, Map<String, String> metadata) {
        return storeCompressedDerivedOtlp(key, compress(otlpPayload), metadata);
    }

    /**
     * As {@link #storeDerivedOtlp}, with the payload already as this archive stores it ({@link #compress}), for a
     * caller that kept it so.
     */
    public ArchiveResult storeCompressedDerivedOtlp(ArchiveKey key, byte[] storedOtlp, Map<String, String> metadata) {
        boolean created = store.putIfAbsent(key.stem() + OTLP_SUFFIX + compression().suffix(), storedOtlp,
                headers(PROTOBUF, key, metadata), store.requests().deadline());
        return created ? ArchiveResult.STORED : ArchiveResult.DUPLICATE;
    }

    /** A payload as this archive stores it: compressed as configured, deterministically. */
    public byte[] compress(byte[] payload) {
        return compression().compress(payload);
    }

    /** A payload stored by this archive ({@link #compress}), as it was. */
    public byte[] decompress(byte[] stored) {
        return compression().decompress(stored);
    }

    /** The decompressed Sentry form of a chunk by its key, empty when it is not archived. */
    public Optional<byte[]> readSentry(ArchiveKey key) {
        for (ArchiveCompression compression : ArchiveCompression.values()) {
            Optional<byte[]> stored = store.readObject(key.stem() + SENTRY_SUFFIX + compression.suffix());
            if (stored.isPresent()) {
                return Optional.of(compression.decompress(stored.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * Chunks of a project and day whose Sentry form is archived and whose OTLP form is not (yet) derived, with when
     * their Sentry object was written.
     */
    public List<UnderivedChunk> listUnderived(String projectId, LocalDate day) {
        ArchiveKey.checkPart("project id", projectId);
        List<UnderivedChunk> underived = new ArrayList<>();
        for (Map.Entry<String, ChunkObjects> e : listStems(projectId, day).entrySet()) {
            ChunkObjects objects = e.getValue();
            if (objects.otlp == null && objects.sentry != null) {
                String[] parts = e.getKey().split("/", 2);
                underived.add(new UnderivedChunk(new ArchiveKey(projectId, day, parts[0], parts[1]),
                        objects.sentryWrittenAt));
            }
        }
        return underived;
    }

    /** The days that hold chunks of a project (its day folders), oldest first. */
    public List<LocalDate> listDays(String projectId) {
        ArchiveKey.checkPart("project id", projectId);
        return ArchiveLayout.dayFolders(store, projectId + "/");
    }

    /** The project ids that have objects in the archive (the top-level folders that are numbers). */
    public List<String> listProjects() {
        return store.listFolders("").stream().filter(name -> name.matches("[0-9]{1,20}")).toList();
    }

    /**
     * Keeps a payload the relay failed on (a bug, not a bad input) so that it can be processed again once fixed:
     * {@code quarantine/{project}/{yyyy-mm-dd of today, UTC}/{chunk id or "unknown"}-{random}.sentry.json.zst},
     * with the failure in the metadata {@code reason}. Returns the key in the bucket.
     *
     * @throws ArchiveUnavailableException when storage fails within the deadline
     */
    public String quarantine(String projectId, String chunkId, byte[] payload, String reason) {
        ArchiveKey.checkPart("project id", projectId);
        String name = chunkId != null && chunkId.matches("[0-9a-f]{32}") ? chunkId : "unknown";
        LocalDate today = TimeBuckets.dayOf(store.clock().instant());
        String key = ArchiveLayout.QUARANTINE + projectId + "/" + today + "/" + name + "-"
                + UUID.randomUUID() + SENTRY_SUFFIX + compression().suffix();
        store.put(key, compress(payload), new ObjectHeaders(JSON, compression().encoding(),
                Map.of("reason", ObjectHeaders.safeValue(reason), ChunkMetadata.PROJECT, projectId)), store.requests().deadline());
        return store.bucketKey(key);
    }

    /**
     * The archived chunks of a project whose day lies in {@code [from, to]}, in key order, with their markers.
     */
    public List<ArchivedChunk> list(String projectId, LocalDate from, LocalDate to) {
        ArchiveKey.checkPart("project id", projectId);
        List<ArchivedChunk> chunks = new ArrayList<>();
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            for (Map.Entry<String, ChunkObjects> e : listStems(projectId, day).entrySet()) {
                ChunkObjects objects = e.getValue();
                if (objects.otlp != null) {
                    String[] parts = e.getKey().split("/", 2);
                    chunks.add(new ArchivedChunk(new ArchiveKey(projectId, day, parts[0], parts[1]), objects.otlp,
                            objects.sentry, objects.delivered, objects.replay, objects.refused));
                }
            }
        }
        return chunks;
    }

    /** The decompressed OTLP form ({@code ExportProfilesServiceRequest} bytes) of an archived chunk. */
    public byte[] readOtlp(ArchivedChunk chunk) {
        return read(chunk.otlpObjectKey());
    }

    /**
     * A chunk's OTLP form, decompressed, with its object's metadata (platform, release, ...), in one read; empty
     * while it is not derived.
     */
    public Optional<DerivedForm> readDerived(ArchiveKey key) {
        for (ArchiveCompression compression : ArchiveCompression.inReadOrder(compression())) {
            Optional<ObjectStore.StoredObject> stored = store.readWithMetadata(key.stem() + OTLP_SUFFIX
                    + compression.suffix());
            if (stored.isPresent()) {
                return Optional.of(new DerivedForm(compression.decompress(stored.get().body()),
                        stored.get().metadata()));
            }
        }
        return Optional.empty();
    }

    /** A chunk's OTLP form and its object's user metadata by name ({@link ChunkMetadata}). */
    public record DerivedForm(byte[] otlp, Map<String, String> metadata) {
    }

    /** A chunk's OTLP object's metadata, empty while it is not derived. */
    public Optional<Map<String, String>> derivedMetadata(ArchiveKey key) {
        for (ArchiveCompression compression : ArchiveCompression.inReadOrder(compression())) {
            Optional<Map<String, String>> metadata = store.metadata(key.stem() + OTLP_SUFFIX + compression.suffix());
            if (metadata.isPresent()) {
                return metadata;
            }
        }
        return Optional.empty();
    }

    /** The user metadata of an archived chunk's OTLP object (platform, release, sample count, ...), by name. */
    public Map<String, String> metadata(ArchivedChunk chunk) {
        return store.metadata(store.keyOf(chunk.otlpObjectKey())).orElse(Map.of());
    }

    /** The user metadata of a chunk's Sentry object, by name; empty when it is not archived. */
    public Map<String, String> sentryMetadata(ArchiveKey key) {
        for (ArchiveCompression compression : ArchiveCompression.values()) {
            Optional<Map<String, String>> metadata = store.metadata(key.stem() + SENTRY_SUFFIX + compression.suffix());
            if (metadata.isPresent()) {
                return metadata.get();
            }
        }
        return Map.of();
    }

    /** The decompressed Sentry form (the SDK's payload) of an archived chunk. */
    public byte[] readSentry(ArchivedChunk chunk) {
        if (chunk.sentryObjectKey() == null) {
            throw new IllegalArgumentException("the Sentry object of " + chunk.key().stem() + " is missing");
        }
        return read(chunk.sentryObjectKey());
    }

    /** Records that the chunk's OTLP form reached the forwarding target; drops its replay marker. */
    public void markDelivered(ArchiveKey key) {
        putMarker(key.stem() + DELIVERED_SUFFIX, store.clock().instant().toString());
        store.deleteQuietly(key.stem() + REPLAY_SUFFIX);
    }

    /** Records that forwarding of the chunk was skipped or failed, so that replay picks it up. */
    public void markForReplay(ArchiveKey key, String reason) {
        putMarker(key.stem() + REPLAY_SUFFIX, store.clock().instant() + " " + reason);
    }

    /**
     * Records that the forwarding target refused the chunk's OTLP form for good (a retry cannot succeed), with its
     * reason; drops its replay marker, so neither the recovery pass nor replay sends it again unasked. A delivery
     * marker written later (a replay asked to re-send refused chunks) outranks it.
     */
    public void markRefused(ArchiveKey key, String reason) {
        putMarker(key.stem() + REFUSED_SUFFIX, store.clock().instant() + " " + reason);
        store.deleteQuietly(key.stem() + REPLAY_SUFFIX);
    }

    /** The refusal marker's text ({@code {instant} {reason}}) when the target refused the chunk for good. */
    public Optional<String> refusal(ArchiveKey key) {
        return store.readObject(key.stem() + REFUSED_SUFFIX).map(body -> new String(body, StandardCharsets.UTF_8));
    }

    public boolean isDelivered(ArchiveKey key) {
        return store.metadata(key.stem() + DELIVERED_SUFFIX).isPresent();
    }

    public boolean isMarkedForReplay(ArchiveKey key) {
        return store.metadata(key.stem() + REPLAY_SUFFIX).isPresent();
    }

    /** Whether the archive can take writes now ({@link ObjectStore#reachable}). */
    public boolean reachable() {
        return store.reachable();
    }

    @Override
    public void close() {
        if (ownsStore) {
            store.close();
        }
    }

    private ArchiveCompression compression() {
        return settings.compression();
    }

    /** The objects of one project and day, by stem ({@code {profiler}/{chunk}} below the day). */
    private Map<String, ChunkObjects> listStems(String projectId, LocalDate day) {
        String dayPrefix = projectId + "/" + day + "/";
        int dayPrefixLength = store.bucketKey(dayPrefix).length();
        Map<String, ChunkObjects> byStem = new LinkedHashMap<>();
        for (S3Object object : store.list(dayPrefix)) {
            collect(object, dayPrefixLength, byStem);
        }
        return byStem;
    }

    /** Files an object under its stem by its suffix. */
    private static void collect(S3Object object, int dayPrefixLength, Map<String, ChunkObjects> byStem) {
        String key = object.key();
        String rest = key.substring(dayPrefixLength);
        for (ArchiveCompression c : ArchiveCompression.values()) {
            if (rest.endsWith(OTLP_SUFFIX + c.suffix())) {
                objects(byStem, rest, OTLP_SUFFIX + c.suffix()).otlp = key;
                return;
            }
            if (rest.endsWith(SENTRY_SUFFIX + c.suffix())) {
                ChunkObjects objects = objects(byStem, rest, SENTRY_SUFFIX + c.suffix());
                objects.sentry = key;
                objects.sentryWrittenAt = object.lastModified();
                return;
            }
        }
        if (rest.endsWith(DELIVERED_SUFFIX)) {
            objects(byStem, rest, DELIVERED_SUFFIX).delivered = true;
        } else if (rest.endsWith(REPLAY_SUFFIX)) {
            objects(byStem, rest, REPLAY_SUFFIX).replay = true;
        } else if (rest.endsWith(REFUSED_SUFFIX)) {
            objects(byStem, rest, REFUSED_SUFFIX).refused = true;
        }
    }

    private static ChunkObjects objects(Map<String, ChunkObjects> byStem, String rest, String suffix) {
        String stem = rest.substring(0, rest.length() - suffix.length());
        return byStem.computeIfAbsent(stem, s -> new ChunkObjects());
    }

    /** An object listed with its key in the bucket, decompressed as its suffix says. */
    private byte[] read(String bucketKey) {
        return ArchiveCompression.fromSuffix(bucketKey).decompress(store.read(store.keyOf(bucketKey)));
    }

    private void putMarker(String key, String body) {
        store.put(key, body.getBytes(StandardCharsets.UTF_8), new ObjectHeaders(MARKER, null, Map.of()),
                store.requests().deadline());
    }

    /** A chunk object's headers: its content type, the archive's compression, the given metadata and the key's. */
    private ObjectHeaders headers(String contentType, ArchiveKey key, Map<String, String> given) {
        ChunkMetadata.checkNames(given);
        Map<String, String> metadata = new HashMap<>();
        given.forEach((name, value) -> metadata.put(name, ObjectHeaders.safeValue(value)));
        metadata.put(ChunkMetadata.PROJECT, key.projectId());
        metadata.put(ChunkMetadata.PROFILER_ID, key.profilerId());
        metadata.put(ChunkMetadata.CHUNK_ID, key.chunkId());
        return new ObjectHeaders(contentType, compression().encoding(), metadata);
    }

    /** The objects found under one stem. */
    private static final class ChunkObjects {
        String otlp;
        String sentry;
        Instant sentryWrittenAt;
        boolean delivered;
        boolean replay;
        boolean refused;
    }
}
